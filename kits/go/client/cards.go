package client

// Card-set decisions (DECISION_KIND_CHOOSE_CARDS: exchange, burn, discard, the dealer's pick).
// The referee lists the legal sets in legal_actions when there are at most 256 of them;
// beyond that legal_actions is empty and only the rule card_set says what is legal: between
// min_count and max_count cards from allowed, every card of required included.

import pb "pitchkit/gen/pitch/v1"

// CardsFromRule builds a set that meets rule: every required card, then allowed cards in
// the order of preferred (nil: the order the referee sent, increasing id) until min_count.
// Cards of preferred outside allowed are skipped.
func CardsFromRule(rule *pb.CardSetRule, preferred []*pb.Card) []*pb.Card {
	if preferred == nil {
		preferred = rule.GetAllowed()
	}
	allowed := map[uint32]*pb.Card{}
	for _, card := range rule.GetAllowed() {
		allowed[card.GetId()] = card
	}
	chosen := append([]*pb.Card{}, rule.GetRequired()...)
	taken := map[uint32]bool{}
	for _, card := range chosen {
		taken[card.GetId()] = true
	}
	for _, card := range preferred {
		if uint32(len(chosen)) >= rule.GetMinCount() {
			break
		}
		if found, ok := allowed[card.GetId()]; ok && !taken[card.GetId()] {
			chosen = append(chosen, found)
			taken[card.GetId()] = true
		}
	}
	return chosen
}

// MeetsRule says whether cards is a legal answer under rule.
func MeetsRule(rule *pb.CardSetRule, cards []*pb.Card) bool {
	ids := map[uint32]bool{}
	for _, card := range cards {
		ids[card.GetId()] = true
	}
	allowed := map[uint32]bool{}
	for _, card := range rule.GetAllowed() {
		allowed[card.GetId()] = true
	}
	for id := range ids {
		if !allowed[id] {
			return false
		}
	}
	for _, card := range rule.GetRequired() {
		if !ids[card.GetId()] {
			return false
		}
	}
	count := uint32(len(ids))
	return count >= rule.GetMinCount() && count <= rule.GetMaxCount()
}

// CardsAction is the answer action for a chosen set.
func CardsAction(cards []*pb.Card) *pb.Action {
	return &pb.Action{Choice: &pb.Action_Cards{Cards: &pb.CardSet{Cards: cards}}}
}
