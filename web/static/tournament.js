// Live progress of a tournament: counters and the bar follow the server's events; when the
// table is written the page reloads once to show it.
(function () {
  const panel = document.getElementById("progress");
  if (!panel || panel.dataset.finished === "true" || !window.EventSource) return;
  const source = new EventSource(panel.dataset.url);
  const set = (id, value) => { const node = document.getElementById(id); if (node) node.textContent = value; };
  const width = (id, part, total) => { const node = document.getElementById(id); if (node) node.style.width = (100 * part / (total || 1)) + "%"; };
  function show(event) {
    const p = JSON.parse(event.data);
    set("count-played", p.played); set("count-running", p.running); set("count-not-played", p.not_played);
    set("count-pending", p.pending - p.running); set("state", p.finished ? "finished" : "running");
    width("bar-played", p.played, p.total); width("bar-running", p.running, p.total); width("bar-failed", p.not_played, p.total);
  }
  source.addEventListener("progress", show);
  source.addEventListener("finished", (event) => { show(event); source.close(); window.location.reload(); });
})();
