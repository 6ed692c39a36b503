// A person's seat in the browser. On the form: only the seats the chosen preset has are
// offered. On the table: the server's events (the table's JSON view) redraw it; the pending
// decision's legal actions are the only clickable elements (class "legal"), and its time
// budget and bank count down. Every text goes in through textContent: no HTML is built
// from data.
(function () {
  "use strict";
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // A card as the _macros.html card() draws it; a button when it can be clicked.
  function card(name, clickable) {
    const node = el(clickable ? "button" : "span", "card");
    if (clickable) node.type = "button";
    node.dataset.card = name;
    if (name === "BJ" || name === "LJ") {
      node.classList.add("joker");
      node.textContent = (name === "BJ" ? "★" : "☆") + "J";
    } else {
      const suit = name.slice(-1);
      node.classList.add("DH".includes(suit) ? "red" : "black");
      node.textContent = name.slice(0, -1) + (SUITS[suit] || suit);
    }
    return node;
  }

  function cardBack() {
    const node = el("span", "card back", "🂠");
    node.dataset.card = "hidden";
    return node;
  }

  function seconds(ms) {
    return (Math.max(0, ms) / 1000).toFixed(ms < 10000 ? 1 : 0) + " s";
  }

  // ---------------------------------------------------------------- the form
  const form = document.getElementById("play-form");
  if (form) {
    const presetSelect = document.getElementById("play-preset");
    const fit = () => {
      const players = Number(presetSelect.selectedOptions[0].dataset.players || 4);
      document.querySelectorAll("#play-opponents .opponent").forEach((label) => {
        const used = Number(label.dataset.slot) < players - 1;
        label.hidden = !used;
        label.querySelector("select").disabled = !used;
      });
      const seat = document.getElementById("play-seat");
      seat.querySelectorAll("option").forEach((option) => { option.hidden = option.disabled = Number(option.value) >= players; });
      if (Number(seat.value) >= players) seat.value = "0";
    };
    presetSelect.addEventListener("change", fit);
    fit();
  }

  // ---------------------------------------------------------------- the table
  const root = document.getElementById("play");
  if (!root || !window.EventSource) return;
  const owner = root.dataset.owner === "true";
  let view = null;
  let receivedAt = 0;
  let sentFor = null; // the decision id already answered (a second click does nothing)
  let selected = new Set();
  const byId = (id) => document.getElementById(id);

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function showError(text) {
    const node = byId("play-error");
    node.textContent = text || "";
    node.hidden = !text;
  }

  // Whether the person plays from the keyboard: the focus was on their hand or actions
  // when they answered, so the next redraw puts it back there (the answered button is gone).
  let focusHand = false;

  function inHand(node) {
    return Boolean(node) && (byId("play-hand").contains(node) || byId("play-actions").contains(node));
  }

  function send(fields) {
    const decision = view && view.decision;
    if (!decision || sentFor === decision.id) return;
    sentFor = decision.id;
    focusHand = focusHand || inHand(document.activeElement);
    const body = new URLSearchParams(Object.assign({ decision_id: decision.id }, fields));
    fetch(root.dataset.decision, { method: "POST", body: body, credentials: "same-origin" })
      .then((response) => response.json().then((answer) => {
        if (!response.ok) { showError(answer.error || ("refused: " + response.status)); sentFor = null; }
        else showError("");
      }))
      .catch(() => { showError("the answer did not reach the web arena; try again"); sentFor = null; });
  }

  function lastBid(table, seat) {
    let found = null;
    table.bids.forEach((b) => { if (b.seat === seat) found = b.amount; });
    return found;
  }

  function partyScores(table) {
    return table.scores.map((score, party) => "party " + (party + 1) + ": " + score).join(", ");
  }

  function drawSeats(table) {
    document.querySelectorAll("#play-seats .play-seat").forEach((box) => {
      const seat = Number(box.dataset.seat);
      const bid = lastBid(table, seat);
      box.querySelector("[data-role=bid]").textContent = bid === null ? "" : (bid === 0 ? "passed" : "bid " + bid);
      const cards = box.querySelector("[data-role=cards]");
      clear(cards);
      if ((seat !== view.seat || !owner) && view.state !== "finished") {
        for (let i = 0; i < (table.hand_sizes[seat] || 0); i += 1) cards.appendChild(cardBack());
      }
      const played = box.querySelector("[data-role=played]");
      clear(played);
      if (view.state !== "finished") {
        table.trick.forEach((play) => { if (play.seat === seat) played.appendChild(card(play.card, false)); });
      }
      box.classList.toggle("to-move", view.state !== "finished" && table.to_move === seat);
    });
    byId("play-hand-number").textContent = table.hand_number;
    byId("play-trump").textContent = table.trump ? SUITS[table.trump[0]] + " " + table.trump.toLowerCase() : "—";
    byId("play-bid").textContent = table.pitcher === null ? "—"
      : (table.bid ? table.bid + " by " : "") + "seat " + (table.pitcher + 1);
    const final = view.result && view.result.scores.length ? view.result.scores[view.result.scores.length - 1] : null;
    byId("play-scores").textContent = partyScores(final ? { scores: final } : table);
    const last = byId("play-last");
    clear(last);
    if (table.last_trick && view.state !== "finished") {
      last.appendChild(el("span", "muted", "last trick: "));
      table.last_trick.plays.forEach((play) => last.appendChild(card(play.card, false)));
      last.appendChild(el("span", "muted", " won by seat " + (table.last_trick.winner + 1)));
    }
  }

  // The card-set decision: the allowed cards toggle; "Choose" sends a set the decision admits.
  function drawSelection(decision, hand, handNode, actions) {
    const listed = decision.actions.filter((a) => a.cards);
    const rule = decision.card_set;
    const allowed = new Set(rule ? rule.allowed : listed.flatMap((a) => a.cards));
    const required = new Set(rule ? rule.required : []);
    required.forEach((name) => selected.add(name));
    const match = () => {
      if (rule) {
        const ok = selected.size >= rule.min && selected.size <= rule.max && [...required].every((c) => selected.has(c));
        return ok ? { cards: [...selected].join(",") } : null;
      }
      const found = listed.find((a) => a.cards.length === selected.size && a.cards.every((c) => selected.has(c)));
      return found ? { index: String(found.index) } : null;
    };
    const submit = el("button", "legal", "Choose these cards");
    submit.type = "button";
    submit.id = "play-choose";
    const refresh = () => {
      submit.disabled = match() === null;
      document.querySelectorAll("#play-mine-cards .card, #play-hand .card").forEach((node) => {
        node.classList.toggle("selected", selected.has(node.dataset.card));
      });
    };
    const toggle = (name) => {
      if (required.has(name)) return;
      if (selected.has(name)) selected.delete(name); else selected.add(name);
      refresh();
    };
    hand.forEach((name) => {
      const pickable = allowed.has(name);
      const node = card(name, pickable);
      if (pickable) { node.classList.add("legal"); node.addEventListener("click", () => toggle(name)); }
      handNode.appendChild(node);
    });
    const extra = [...allowed].filter((name) => !hand.includes(name));
    if (extra.length) {
      const row = el("div", "play-extra");
      row.id = "play-mine-cards";
      row.appendChild(el("span", "muted", "also: "));
      extra.forEach((name) => {
        const node = card(name, true);
        node.classList.add("legal");
        node.addEventListener("click", () => toggle(name));
        row.appendChild(node);
      });
      actions.appendChild(row);
    }
    submit.addEventListener("click", () => { const answer = match(); if (answer) send(answer); });
    actions.appendChild(submit);
    refresh();
    return rule ? "Choose " + (rule.min === rule.max ? rule.min : rule.min + " to " + rule.max) + " cards"
      : "Choose the cards";
  }

  function drawMine() {
    const handNode = byId("play-hand");
    const actions = byId("play-actions");
    focusHand = focusHand || inHand(document.activeElement);
    clear(handNode);
    clear(actions);
    const decision = view.decision;
    const hand = view.hand;
    let prompt = owner ? (view.state === "finished" ? "" : "Waiting for the other seats…") : "The hand is hidden.";
    if (decision && decision.kind === "choose-cards") {
      prompt = drawSelection(decision, hand, handNode, actions);
    } else {
      const plays = new Map();
      const others = [];
      (decision ? decision.actions : []).forEach((a) => { if (a.kind === "play") plays.set(a.card, a); else others.push(a); });
      hand.forEach((name) => {
        const action = plays.get(name);
        const node = card(name, Boolean(action));
        if (action) {
          node.classList.add("legal");
          node.addEventListener("click", () => send({ index: String(action.index) }));
        }
        handNode.appendChild(node);
      });
      others.forEach((a) => {
        const node = a.card ? card(a.card, true) : el("button", "action", a.text);
        node.type = "button";
        node.classList.add("legal");
        node.dataset.index = a.index;
        node.title = a.text;
        node.addEventListener("click", () => send({ index: String(a.index) }));
        actions.appendChild(node);
      });
      if (decision) prompt = plays.size ? "Your turn: play a highlighted card" : "Your turn: " + decision.kind.replace("-", " ");
    }
    byId("play-prompt").textContent = prompt;
    const next = handNode.querySelector(".legal") || actions.querySelector(".legal");
    if (focusHand && next) {  // keep a keyboard player on their hand
      next.focus();
      focusHand = false;
    }
  }

  function drawResult() {
    const strikes = byId("play-strikes");
    clear(strikes);
    view.strikes.forEach((text) => strikes.appendChild(el("li", "error", text)));
    const box = byId("play-result");
    if (view.state !== "finished") { box.hidden = true; return; }
    box.hidden = false;
    const result = view.result;
    if (!result) {
      byId("play-outcome").textContent = "The game did not take place";
      byId("play-result-detail").textContent = view.error || "";
      byId("play-replay").hidden = true;
      return;
    }
    byId("play-outcome").textContent = result.won ? "You won" : result.drawn ? "A draw" : "You lost";
    const scores = result.scores.length ? result.scores[result.scores.length - 1] : [];
    let detail = "Final score: " + scores.map((s, party) => "party " + (party + 1) + " " + s).join(", ") + ".";
    if (result.forfeited) detail += " Party " + (result.forfeiting_party + 1) + " forfeited.";
    byId("play-result-detail").textContent = detail;
  }

  function show(next) {
    const changedDecision = !view || !next.decision || !view.decision || view.decision.id !== next.decision.id;
    if (changedDecision) selected = new Set();
    view = next;
    receivedAt = performance.now();
    root.dataset.state = view.state;
    root.dataset.decisionId = view.decision ? view.decision.id : "";
    byId("play-state").textContent = view.state === "deciding" ? "your turn" : view.state;
    if (view.table) drawSeats(view.table);
    drawMine();
    drawResult();
    tick();
  }

  function tick() {
    const decision = view && view.decision;
    if (!decision) { byId("time-budget").textContent = "—"; byId("time-bank").textContent = "—"; return; }
    const left = decision.budget_ms - decision.elapsed_ms - (performance.now() - receivedAt);
    byId("time-budget").textContent = seconds(left);
    byId("time-bank").textContent = seconds(left >= 0 ? decision.bank_ms : decision.bank_ms + left);
  }

  const source = new EventSource(root.dataset.events);
  source.addEventListener("state", (event) => show(JSON.parse(event.data)));
  source.addEventListener("finished", (event) => { show(JSON.parse(event.data)); source.close(); });
  window.setInterval(tick, 250);
})();
