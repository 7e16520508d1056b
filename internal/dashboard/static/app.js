// The dashboard's only script: copy buttons next to secrets shown once. Without it the secret is
// still there, selected on focus, to copy by hand.
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-copy]");
  if (!button) return;
  var field = document.getElementById(button.getAttribute("data-copy"));
  if (!field) return;
  field.select();
  var done = function () { button.textContent = "Copied"; };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); });
  } else {
    document.execCommand("copy");
    done();
  }
});
document.addEventListener("focusin", function (event) {
  if (event.target.matches("input[readonly]")) event.target.select();
});
