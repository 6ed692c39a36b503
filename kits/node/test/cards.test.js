'use strict';
// The card-set helpers against hand-made rules: `node --test` (built into Node 18+).

const test = require('node:test');
const assert = require('node:assert/strict');
const { cardsFromRule, meetsRule, cardsAction } = require('../src/cards');

const card = (id) => ({ id, name: `c${id}` });
const rule = { allowed: [card(1), card(2), card(3), card(4)], required: [card(3)], min_count: 2, max_count: 3 };

test('a set from the rule holds the required cards, then allowed ones up to the minimum', () => {
  const chosen = cardsFromRule(rule);
  assert.deepEqual(chosen.map((c) => c.id), [3, 1]);
  assert.ok(meetsRule(rule, chosen));
});

test('preferred cards come first; ids work, cards outside the rule are skipped', () => {
  assert.deepEqual(cardsFromRule(rule, [9, card(4), 3, 2]).map((c) => c.id), [3, 4]);
});

test('a set breaking the rule is refused: too few, too many, not allowed, required missing', () => {
  assert.equal(meetsRule(rule, [card(3)]), false);
  assert.equal(meetsRule(rule, [card(1), card(2), card(3), card(4)]), false);
  assert.equal(meetsRule(rule, [card(3), card(9)]), false);
  assert.equal(meetsRule(rule, [card(1), card(2)]), false);
  assert.equal(meetsRule(rule, [card(3), card(2), card(2)]), true); // a card given twice counts once
});

test('the answer action names every card by id and name', () => {
  assert.deepEqual(cardsAction([card(0)]), { cards: { cards: [{ id: 0, name: 'c0' }] } });
});
