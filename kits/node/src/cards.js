'use strict';
// Card-set decisions (DECISION_KIND_CHOOSE_CARDS: exchange, burn, discard, the dealer's pick).
// The referee lists the legal sets in `legal_actions` when there are at most 256 of them;
// beyond that `legal_actions` is empty and only the rule `card_set` says what is legal:
// between min_count and max_count cards from `allowed`, every card of `required` included.

/**
 * A set that meets `rule`: every required card, then allowed cards in the order of
 * `preferred` (default: the order the referee sent, increasing card id) until min_count.
 * `preferred` may hold card objects or ids; cards outside `allowed` are skipped.
 */
function cardsFromRule(rule, preferred = rule.allowed) {
  const chosen = new Map(rule.required.map((card) => [card.id, card]));
  const allowed = new Map(rule.allowed.map((card) => [card.id, card]));
  for (const item of preferred) {
    if (chosen.size >= rule.min_count) break;
    const id = typeof item === 'number' ? item : item.id;
    if (allowed.has(id)) chosen.set(id, allowed.get(id));
  }
  return [...chosen.values()];
}

/** Whether `cards` (card objects) is a legal answer under `rule`. */
function meetsRule(rule, cards) {
  const ids = new Set(cards.map((card) => card.id));
  const allowed = new Set(rule.allowed.map((card) => card.id));
  return ids.size >= rule.min_count && ids.size <= rule.max_count
    && [...ids].every((id) => allowed.has(id))
    && rule.required.every((card) => ids.has(card.id));
}

/** The answer action for a chosen set (what `Decision.action` holds). */
function cardsAction(cards) {
  return { cards: { cards: cards.map((card) => ({ id: card.id, name: card.name })) } };
}

module.exports = { cardsFromRule, meetsRule, cardsAction };
