// The dashboard's only script. Every page works without it; with it:
// - copy buttons next to secrets shown once (without, the secret is selected on focus);
// - a list or a job page with jobs still running (#live[data-live]) asks for the page again
//   every two seconds and swaps in the new #live, without a reload, until nothing runs;
// - an upload form (form[data-upload]) shows the upload's progress and cannot be sent twice.
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

(function live() {
  var box = document.querySelector("#live[data-live]");
  if (!box || !window.fetch || !window.DOMParser) return;
  var tick = function () {
    fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var next = new DOMParser().parseFromString(html, "text/html").getElementById("live");
        if (!next) return;
        var current = document.getElementById("live");
        current.innerHTML = next.innerHTML;
        if (next.hasAttribute("data-live")) {
          setTimeout(tick, 2000);
        } else {
          current.removeAttribute("data-live");
        }
      })
      .catch(function () { setTimeout(tick, 5000); });
  };
  setTimeout(tick, 2000);
})();

document.addEventListener("submit", function (event) {
  var form = event.target;
  if (!form.matches("form[data-upload]") || !window.XMLHttpRequest || !window.FormData) return;
  event.preventDefault();
  var button = form.querySelector("button[type=submit]");
  if (button.disabled) return;
  button.disabled = true;
  var bar = form.querySelector("progress");
  bar.hidden = false;
  var xhr = new XMLHttpRequest();
  xhr.open("POST", form.action);
  xhr.upload.addEventListener("progress", function (e) {
    if (e.lengthComputable) bar.value = Math.round(100 * e.loaded / e.total);
  });
  xhr.addEventListener("load", function () {
    // A created job answers with a redirect to its page, which XHR follows: go there. A refusal
    // is a page of its own: show it.
    if (xhr.status === 200 && xhr.responseURL && xhr.responseURL !== form.action) {
      window.location.assign(xhr.responseURL);
      return;
    }
    document.open();
    document.write(xhr.responseText);
    document.close();
  });
  xhr.addEventListener("error", function () {
    button.disabled = false;
    bar.hidden = true;
    alert("The upload failed: check the connection and send the form again.");
  });
  xhr.send(new FormData(form));
});
