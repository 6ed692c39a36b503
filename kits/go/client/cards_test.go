package client

import (
	"testing"

	pb "pitchkit/gen/pitch/v1"
)

func card(id uint32) *pb.Card { return &pb.Card{Id: id} }

func cards(ids ...uint32) []*pb.Card {
	out := []*pb.Card{}
	for _, id := range ids {
		out = append(out, card(id))
	}
	return out
}

func ids(cards []*pb.Card) []uint32 {
	out := []uint32{}
	for _, c := range cards {
		out = append(out, c.GetId())
	}
	return out
}

var rule = &pb.CardSetRule{Allowed: cards(1, 2, 3, 4), Required: cards(3), MinCount: 2, MaxCount: 3}

func TestASetFromTheRuleHoldsTheRequiredCardsThenAllowedOnesUpToTheMinimum(t *testing.T) {
	chosen := CardsFromRule(rule, nil)
	if got := ids(chosen); len(got) != 2 || got[0] != 3 || got[1] != 1 || !MeetsRule(rule, chosen) {
		t.Fatalf("got %v", got)
	}
}

func TestPreferredCardsComeFirstAndCardsOutsideTheRuleAreSkipped(t *testing.T) {
	if got := ids(CardsFromRule(rule, cards(9, 4, 3, 2))); len(got) != 2 || got[0] != 3 || got[1] != 4 {
		t.Fatalf("got %v", got)
	}
}

func TestASetBreakingTheRuleIsRefused(t *testing.T) {
	for _, set := range [][]*pb.Card{cards(3), cards(1, 2, 3, 4), cards(3, 9), cards(1, 2)} {
		if MeetsRule(rule, set) {
			t.Errorf("%v meets the rule", ids(set))
		}
	}
	if !MeetsRule(rule, cards(3, 2, 2)) { // a card given twice counts once
		t.Errorf("a repeated card was counted twice")
	}
}
