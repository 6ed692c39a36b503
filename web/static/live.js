// Live matches. On /live: the list of running matches, refreshed from its JSON every few
// seconds. On /live/{id}: the spectator's table, redrawn from the server-sent events (each
// carries the public table after the event; hidden hands arrive as counts only). Every
// value from the server is set as text (bot names are bot-supplied), never as HTML.
(function () {
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const LOG_LINES = 60;

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function card(name) {
    // The same drawing as the _macros.html card macro: <span class="card" data-card="AS">.
    const text = String(name);
    if (text === "BJ" || text === "LJ") {
      const joker = element("span", "card joker", (text === "BJ" ? "★" : "☆") + "J");
      joker.dataset.card = text;
      return joker;
    }
    const suit = text.slice(-1);
    const node = element("span", "card " + (suit === "D" || suit === "H" ? "red" : "black"),
                         text.slice(0, -1) + (SUITS[suit] || suit));
    node.dataset.card = text;
    return node;
  }

  function back() {
    const node = element("span", "card back", "🂠");
    node.dataset.card = "hidden";
    return node;
  }

  // ------------------------------------------------------------------ the list
  const status = document.getElementById("live-status");
  const list = document.querySelector("#live-matches tbody");
  if (status && list && window.fetch) {
    const refresh = async function () {
      let answer;
      try {
        const response = await fetch(status.dataset.url, { headers: { Accept: "application/json" } });
        answer = response.ok ? await response.json() : { reachable: false, matches: [] };
      } catch (error) {
        answer = { reachable: false, matches: [] };
      }
      status.className = answer.reachable ? "muted" : "error";
      status.textContent = answer.reachable
        ? answer.matches.length + (answer.matches.length === 1 ? " match" : " matches") + " running"
          + (answer.silent ? " (" + answer.silent + " of " + answer.referees + " referees did not answer: their matches are not listed)" : "")
          + "; this list follows the referees without a reload."
        : "The referee cannot be reached: the running matches cannot be listed now (this page retries on its own).";
      const rows = answer.matches.map(function (m) {
        const row = element("tr");
        row.dataset.matchId = m.match_id;
        const id = element("td", "name"); const link = element("a", "", m.match_id); link.href = m.url; id.append(link);
        const seats = element("td", "name");
        m.seats.forEach(function (seat, index) {
          if (index) seats.append(", ");
          const bot = element("a", "bot", seat.name); bot.href = seat.url; seats.append(bot);
        });
        const kind = element("td", "name");
        const badge = element("span", m.rated ? "badge on" : "badge", m.label);
        badge.dataset.kind = m.kind;
        kind.append(badge);
        row.append(id, element("td", "name", m.preset), seats, element("td", "game", m.game + " of " + m.games),
                   element("td", "name", m.started), kind);
        return row;
      });
      if (!rows.length) {
        const empty = element("tr", "empty"); const cell = element("td", "name muted", "No match is running.");
        cell.colSpan = 6; empty.append(cell); rows.push(empty);
      }
      list.replaceChildren.apply(list, rows);
    };
    window.setInterval(refresh, Number(status.dataset.refreshMs) || 2000);
  }

  // ------------------------------------------------------------------ the spectator's table
  const table = document.getElementById("table");
  if (!table || !window.EventSource) return;
  const log = document.getElementById("log");
  const set = function (node, text) { if (node) node.textContent = text; };

  function draw(t) {
    set(document.getElementById("game-hand"), t.hand ? "game " + t.game + ", hand " + t.hand : "game " + t.game);
    set(document.getElementById("trump"), t.trump ? "trump " + (SUITS[t.trump] || t.trump) + (t.sub_trump ? ", sub-trump " + (SUITS[t.sub_trump] || t.sub_trump) : "") : "");
    t.names.forEach(function (name, seat) {
      const node = document.getElementById("seat-" + seat);
      if (!node) return;
      node.querySelector(".dealer").hidden = t.dealer !== seat;
      node.classList.toggle("pitcher", t.pitcher === seat);
      const bids = t.bids.filter(function (b) { return b.seat === seat; });
      const bid = bids.length ? bids[bids.length - 1] : null;
      set(node.querySelector(".seat-bid"), bid ? (bid.amount ? "bid " + bid.amount + (bid.double ? " for " + 2 * bid.amount : "") : "pass") : "");
      const hand = node.querySelector(".hand");
      const backs = [];
      for (let i = 0; i < t.held[seat]; i += 1) backs.push(back());
      backs.push(element("span", "count", t.held[seat] + (t.held[seat] === 1 ? " card" : " cards")));
      hand.replaceChildren.apply(hand, backs);
      const shown = node.querySelector(".shown");
      shown.replaceChildren.apply(shown, t.shown[seat].map(card));
      set(node.querySelector(".seat-tricks"), t.tricks_won[seat] + (t.tricks_won[seat] === 1 ? " trick" : " tricks"));
    });
    const trick = document.getElementById("trick");
    trick.replaceChildren.apply(trick, t.trick.map(function (play) {
      const spot = element("span", "play");
      spot.append(card(play.card), element("span", "who", t.names[play.seat]));
      return spot;
    }));
    const last = document.getElementById("last-trick");
    if (t.last_trick) {
      const plays = t.last_trick.plays.map(function (play) { return card(play.card); });
      last.replaceChildren.apply(last, [element("span", "", "last trick: ")].concat(plays, [element("span", "", " to " + t.names[t.last_trick.winner])]));
    } else {
      last.replaceChildren();
    }
    document.querySelectorAll("#scores tbody tr").forEach(function (row) {
      const party = Number(row.dataset.party);
      set(row.querySelector(".score"), t.scores[party]);
      set(row.querySelector(".won"), t.games_won[party]);
    });
    const hands = document.getElementById("hands");
    hands.replaceChildren.apply(hands, t.hands.map(function (h) {
      const item = element("li", "", "hand " + h.hand + ": " + t.names[h.pitcher] + (h.bid ? " bid " + h.bid + (h.made ? ", made it" : ", was set") : "") + ". ");
      h.awards.forEach(function (a) {
        const award = element("span", "award", a.category + (a.value === 1 ? "" : " ×" + a.value) + " → " + t.parties[a.party] + " ");
        if (a.card) award.append(card(a.card));
        item.append(award);
      });
      item.append(element("span", "muted-felt", " scores " + h.scores.join(" – ")));
      return item;
    }));
    table.dataset.events = String(t.events);
  }

  function line(text) {
    log.prepend(element("li", "", text));
    while (log.children.length > LOG_LINES) log.lastElementChild.remove();
  }

  const source = new EventSource(table.dataset.url);
  table.dataset.state = "connecting";
  source.addEventListener("open", function () { table.dataset.state = "live"; });
  // Events come faster than a browser should redraw (a whole match replays on connect):
  // the table is drawn at most once a frame, from the latest event's table.
  let latest = null;
  function frame() { const t = latest; latest = null; if (t) draw(t); }
  source.addEventListener("match-events", function (message) {
    const data = JSON.parse(message.data);
    if (latest === null) window.requestAnimationFrame(frame);
    latest = data.table;
    data.events.slice(-LOG_LINES).forEach(function (event) { line(event.text); });
  });
  source.addEventListener("result", function (message) {
    const result = JSON.parse(message.data);
    source.close();
    frame();
    table.dataset.state = "ended";
    set(document.getElementById("match-state"), "ended");
    set(document.getElementById("result-text"), result.text);
    const parties = Array.from(document.querySelectorAll("#scores tbody td.name")).map(function (cell) { return cell.textContent; });
    set(document.getElementById("result-wins"), parties.map(function (party, index) { return party + " " + (result.party_wins[index] || 0); }).join(", "));
    document.getElementById("result").hidden = false;
    line(result.text);
  });
  source.addEventListener("failure", function (message) {
    source.close();
    table.dataset.state = "failed";
    line(JSON.parse(message.data).text);
  });
  source.addEventListener("error", function () {
    // EventSource retries on its own; a 404 or 503 from the server ends the stream for good.
    if (source.readyState === EventSource.CLOSED && table.dataset.state !== "ended") table.dataset.state = "failed";
  });
})();
