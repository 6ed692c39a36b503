// The replay's keys: each follows the matching button's link (a plain navigation to the
// step's own URL), so the keyboard, the buttons and a shared link always agree.
//   ArrowRight / ArrowLeft: next / previous step
//   Shift+ArrowRight or PageDown / Shift+ArrowLeft or PageUp: next / previous hand
//   Home / End: first / last step
(function () {
  const keys = {
    ArrowRight: (e) => (e.shiftKey ? "nav-next-hand" : "nav-next"),
    ArrowLeft: (e) => (e.shiftKey ? "nav-prev-hand" : "nav-prev"),
    PageDown: () => "nav-next-hand",
    PageUp: () => "nav-prev-hand",
    Home: () => "nav-first",
    End: () => "nav-last",
  };
  document.addEventListener("keydown", (event) => {
    const pick = keys[event.key];
    if (!pick || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && target.closest && target.closest("input, select, textarea")) return;
    const link = document.getElementById(pick(event));
    event.preventDefault();
    if (link && link.href) window.location.assign(link.href);
  });
})();
