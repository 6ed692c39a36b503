// An SPRT run's page kept current: each server-sent event carries the run's standing (the
// same fields the page was drawn with), and the counters, the counts and the LLR's path move
// in place; the page is never reloaded.
(function () {
  const panel = document.getElementById("sprt-run");
  if (!panel || panel.dataset.finished === "true" || !window.EventSource) return;
  const source = new EventSource(panel.dataset.url);
  const set = (id, value) => { const node = document.getElementById(id); if (node) node.textContent = value; };
  const signed = (value) => (value >= 0 ? "+" : "") + value.toFixed(1);
  const height = (id, y) => { const node = document.getElementById(id); if (node) { node.setAttribute("y1", y); node.setAttribute("y2", y); } };
  function recent(pairs) {
    const list = document.getElementById("sprt-recent");
    if (!list || !pairs.length) return;
    list.replaceChildren(...pairs.map((p) => {
      const item = document.createElement("li");
      item.append(`pair ${p.pair}: `);
      p.matches.forEach((id, i) => {
        const link = document.createElement("a");
        link.href = "/matches/" + encodeURIComponent(id);
        link.textContent = id;
        item.append(link);
        if (i < p.matches.length - 1) item.append(", ");
      });
      return item;
    }));
  }
  function show(event) {
    const s = JSON.parse(event.data);
    set("sprt-state", s.state); set("sprt-llr", s.llr.toFixed(2)); set("sprt-lower", s.lower.toFixed(2));
    set("sprt-upper", s.upper.toFixed(2)); set("sprt-games", s.games); set("sprt-pairs", s.pairs);
    set("sprt-elo", signed(s.elo)); set("sprt-elo-lower", signed(s.elo_lower)); set("sprt-elo-upper", signed(s.elo_upper));
    set("sprt-nelo", signed(s.nelo)); set("sprt-nelo-lower", signed(s.nelo_lower)); set("sprt-nelo-upper", signed(s.nelo_upper));
    set("sprt-los", Math.round(100 * s.los) + "%");
    s.counts.forEach((n, i) => { const cell = document.querySelector(`[data-count="${i}"]`); if (cell) cell.textContent = n; });
    s.wdl.forEach((n, i) => { const cell = document.querySelector(`[data-wdl="${i}"]`); if (cell) cell.textContent = n; });
    const c = s.chart;
    document.getElementById("llr-path").setAttribute("points", c.points);
    height("llr-upper", c.upper_y); height("llr-lower", c.lower_y); height("llr-zero", c.zero_y);
    document.getElementById("llr-upper-label").setAttribute("y", c.upper_y + 4);
    document.getElementById("llr-lower-label").setAttribute("y", c.lower_y + 4);
    set("llr-span", `${c.pairs} pairs`);
    recent(s.recent);
    panel.dataset.finished = s.finished ? "true" : "false";
  }
  source.addEventListener("standing", show);
  source.addEventListener("finished", (event) => { show(event); source.close(); });
})();
