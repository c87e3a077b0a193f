// The table's (or the match's) sheet follows the table by itself (issue 51): every few
// seconds it asks the sheet's mark; when the mark changed (the other side answered, the
// referee ruled, a deal was entered) the page is read again — unless something is typed
// on it (a deal half chosen, a code half typed), which is never lost: the page then says
// that the sheet changed, and reads itself again once the form is sent or cleared. Once a
// form is sent the page is left to its answer: a mark that changed because of that very
// form (its answer on its way) must not read the page again and lose what the answer says.
(function () {
  "use strict";
  var root = document.querySelector("[data-mark]");
  if (!root || !window.fetch) { return; }
  var mark = root.getAttribute("data-mark");
  var every = 1000 * (parseInt(root.getAttribute("data-every"), 10) || 3);
  var sent = 0;  // when a form was sent: its answer is the next page
  document.addEventListener("submit", function () { sent = Date.now(); }, true);
  function typed() {
    if (document.querySelector("form[data-typed]")) { return true; }
    var fields = document.querySelectorAll("form input:not([type=hidden]), form select");
    for (var i = 0; i < fields.length; i++) {
      var field = fields[i];
      if (field.tagName === "SELECT") {  // as drawn: the option marked selected, else the first
        var drawn = 0;
        for (var j = 0; j < field.options.length; j++) {
          if (field.options[j].defaultSelected) { drawn = j; break; }
        }
        if (field.selectedIndex !== drawn) { return true; }
      } else if (field.value !== field.defaultValue) { return true; }
    }
    return false;
  }
  function look() {
    var url = root.getAttribute("data-mark-url") + "&seen=" + encodeURIComponent(mark);
    fetch(url, {cache: "no-store", credentials: "same-origin"})
      .then(function (answer) { return answer.ok ? answer.text() : null; })
      .then(function (now) {
        if (Date.now() - sent < 4 * every) { window.setTimeout(look, every); return; }
        if (now && now !== mark) {
          if (!typed()) {  // nothing to lose: read the page again, no tap taken meanwhile
            var fields = document.querySelectorAll("input, select, button");
            for (var i = 0; i < fields.length; i++) { fields[i].disabled = true; }
            window.location.replace(root.getAttribute("data-here"));
            return;
          }
          var note = document.querySelector("[data-testid=changed]");
          if (note) { note.hidden = false; }
        }
        window.setTimeout(look, every);
      }, function () { window.setTimeout(look, 2 * every); });
  }
  window.setTimeout(look, every);
}());
