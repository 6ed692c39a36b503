'use strict';
// ============================================================================================
//  YOUR BOT'S STRATEGY: this is the file to change.
//
//  decide(request, seat) is called for every decision of every seat this bot plays. It gets
//  the DecisionRequest exactly as protos/pitch/v1/bot.proto describes it (field names as in
//  the .proto, enums as names):
//    request.kind           'DECISION_KIND_BID', '..._PLAY', '..._CHOOSE_CARDS', ...
//    request.observation    everything this seat may know: hand, bids, trump, tricks, scores
//    request.legal_actions  every legal action, sorted (empty only for a large card-set choice)
//    request.card_set       the rule of a card-set choice (allowed, required, min/max count)
//    request.time_budget_ms how long the answer may take before the seat's bank is used
//  and `seat`, this seat's record for the whole match: { match_id, seat, ruleset, seat_names,
//  games, time_control, memory } (`memory` is yours: keep anything there between decisions).
//
//  Return one of:
//    - an index into request.legal_actions (a number), or one of its elements;
//    - an Action object (see game.proto), e.g. { play: { name: 'AS' } }, { bid: 3 },
//      { pass: true }, { trump: 'SUIT_HEARTS' }, or cardsAction([...]) for a card set.
//  It may also return a Promise of one of these (think in the background, but mind the budget).
//  A throw is logged and answered with no action: the referee strikes the seat and plays for it.
//
//  Optional hooks, exported beside decide: onMatchStarted(seat) and onMatchEnded(result, seat)
//  (result: the MatchResult of bot.proto), e.g. to set up and drop what `seat.memory` holds.
//
//  The example below is deliberately simple: play the highest-ranked legal card, choose the
//  fewest cards a card-set rule allows, and take the first legal action otherwise.
// ============================================================================================

const { cardsFromRule, cardsAction } = require('./cards');

const name = 'node-starter';
const version = '0.1.0';

/** A card's rank, 2..14 (ace), or 15/16 for the little and big joker (see `Card` in game.proto). */
function rank(card) {
  return card.id >= 52 ? card.id - 37 : (card.id % 13) + 2;
}

function decide(request /* , seat */) {
  switch (request.kind) {
    case 'DECISION_KIND_PLAY': {
      let best = 0;
      request.legal_actions.forEach((action, index) => {
        if (rank(action.play) > rank(request.legal_actions[best].play)) best = index;
      });
      return best;
    }
    case 'DECISION_KIND_CHOOSE_CARDS':
      // Works whether or not the legal sets are listed: build one from the rule.
      return cardsAction(cardsFromRule(request.card_set));
    default: // BID, DECLARE_TRUMP, CALL_CARD, CHOICE
      return 0;
  }
}

module.exports = { name, version, decide };
