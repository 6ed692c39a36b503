// Package strategy is YOUR BOT: the file to change.
//
// Decide is called for every decision of every seat this bot plays. It gets the
// DecisionRequest exactly as protos/pitch/v1/bot.proto describes it:
//
//	request.Kind            pitchv1.DecisionKind_DECISION_KIND_BID, ..._PLAY, ..._CHOOSE_CARDS, ...
//	request.Observation     everything this seat may know: hand, bids, trump, tricks, scores
//	request.LegalActions    every legal action, sorted (empty only for a large card-set choice)
//	request.CardSet         the rule of a card-set choice (allowed, required, min/max count)
//	request.TimeBudgetMs    how long the answer may take before the seat's bank is used
//
// and seat, this seat's record for the whole match (its MatchStarted, and Memory, which is
// yours: keep anything there between decisions). Decide runs on its own goroutine.
//
// Return client.Index(i) (an index into request.LegalActions) or client.Act(action) (an
// Action as in game.proto, e.g. client.CardsAction(cards) for a card set). An error (or a
// panic) is logged and answered with no action: the referee strikes the seat and plays for it.
//
// The example is deliberately simple: play the highest-ranked legal card, choose the fewest
// cards a card-set rule allows, and take the first legal action otherwise.
package strategy

import (
	"pitchkit/client"
	pb "pitchkit/gen/pitch/v1"
)

// Bot is the example strategy.
type Bot struct{}

// Name is the bot's display name in the hello.
func (Bot) Name() string { return "go-starter" }

// Version is the bot's own version string.
func (Bot) Version() string { return "0.1.0" }

// rank is a card's rank, 2..14 (ace), or 15/16 for the little and big joker (see Card in game.proto).
func rank(card *pb.Card) uint32 {
	if card.GetId() >= 52 {
		return card.GetId() - 37
	}
	return card.GetId()%13 + 2
}

// Decide answers one decision.
func (Bot) Decide(request *pb.DecisionRequest, seat *client.Seat) (client.Answer, error) {
	switch request.GetKind() {
	case pb.DecisionKind_DECISION_KIND_PLAY:
		best := 0
		for index, action := range request.GetLegalActions() {
			if rank(action.GetPlay()) > rank(request.GetLegalActions()[best].GetPlay()) {
				best = index
			}
		}
		return client.Index(best), nil
	case pb.DecisionKind_DECISION_KIND_CHOOSE_CARDS:
		// Works whether or not the legal sets are listed: build one from the rule.
		return client.Act(client.CardsAction(client.CardsFromRule(request.GetCardSet(), nil))), nil
	default: // BID, DECLARE_TRUMP, CALL_CARD, CHOICE
		return client.Index(0), nil
	}
}
