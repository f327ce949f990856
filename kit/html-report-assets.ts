/**
 * The HTML report's inline style and script, and the Content-Security-Policy that allows exactly
 * them: the page loads nothing from anywhere (`default-src 'none'`), and the only script that can
 * run is this one (allowed by its SHA-256), so a value from an answer that escaping had missed
 * could still not run as script. Styles are allowed inline: the bars' widths are style attributes.
 */
import { createHash } from 'node:crypto';

export const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 2rem; color: #1b1b1b; max-width: 110rem; }
h1 { font-size: 1.4rem; margin-bottom: .3rem; } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
h3 { font-size: .95rem; font-family: ui-monospace, monospace; margin: 1.2rem 0 .3rem; word-break: break-all; }
code, .mono { font-family: ui-monospace, monospace; }
table { border-collapse: collapse; width: 100%; margin: .3rem 0; }
th, td { border: 1px solid #ccc; padding: .25rem .45rem; text-align: left; vertical-align: top; }
th { background: #f2f2f2; font-weight: 600; }
td.path, td.request { font-family: ui-monospace, monospace; word-break: break-all; }
td.left, td.right { width: 34%; }
pre { margin: 0; white-space: pre-wrap; word-break: break-all; font: 12px/1.35 ui-monospace, monospace; }
td.left pre { color: #8a1c14; } td.right pre { color: #135e1c; } .absent { color: #777; font-style: italic; }
.outcome { font-size: 1.1rem; font-weight: 600; padding: .4rem .7rem; border-radius: 4px; display: inline-block; }
.verdict-differs { background: #fde2e1; } .verdict-accepted { background: #fff3cd; } .verdict-identical { background: #e3f5e1; }
.filters { position: sticky; top: 0; background: #fff; padding: .5rem 0; border-bottom: 1px solid #ddd; z-index: 1; }
.filters label { margin-right: 1rem; } #shown-count { color: #555; }
.pattern { border: 1px solid #ccc; border-radius: 4px; padding: .5rem .7rem; margin: .6rem 0; }
.pattern.standing-accepted { border-color: #e0c46c; background: #fffdf4; } .pattern.standing-noise { border-color: #bbb; background: #fafafa; }
.pattern-head { display: grid; grid-template-columns: 6.5rem minmax(16rem, 1fr) 17rem 12rem 3.5rem; gap: .8rem; align-items: center; }
.share { font-size: 12px; color: #444; text-align: right; }
.kind { font: 600 12px ui-monospace, monospace; padding: .1rem .4rem; border-radius: 3px; background: #e8e8e8; text-align: center; }
.kind-format { background: #dbe9fb; } .kind-value { background: #fde2e1; } .kind-missing, .kind-extra { background: #f9e0f5; } .kind-type { background: #ffe1c7; }
.pattern-path { font-family: ui-monospace, monospace; word-break: break-all; }
.bar { background: #eee; height: .8rem; border-radius: 2px; overflow: hidden; } .bar span { display: block; height: 100%; background: #4a78b8; }
.standing-accepted .bar span { background: #c9a227; } .standing-noise .bar span { background: #999; }
.endpoints-of, .reason { font-size: 12px; color: #444; margin-top: .25rem; } .reason { font-style: italic; }
table.examples { margin-top: .4rem; font-size: 13px; }
[hidden] { display: none !important; }
`;

/**
 * Filters by endpoint and kind: every element with `data-kind` (a pattern, a difference row) is
 * shown when its kind and one of its endpoints (`data-endpoints`, JSON) match; a request's section
 * is shown when one of its rows is. Writes what is shown into `#shown-count`. The filters are kept
 * in the address (`report.html#kind=format&endpoint=GET+%2FObservation`), so a link shows the same.
 */
export const SCRIPT = `
(function () {
  var endpointSelect = document.getElementById('filter-endpoint');
  var kindSelect = document.getElementById('filter-kind');
  var count = document.getElementById('shown-count');
  function matches(element) {
    var endpoint = endpointSelect.value, kind = kindSelect.value;
    var endpoints = JSON.parse(element.getAttribute('data-endpoints') || '[]');
    return (kind === '' || element.getAttribute('data-kind') === kind) && (endpoint === '' || endpoints.indexOf(endpoint) >= 0);
  }
  function apply() {
    var patterns = document.querySelectorAll('.pattern[data-kind]');
    var shownPatterns = 0, shownRows = 0, i;
    for (i = 0; i < patterns.length; i += 1) {
      patterns[i].hidden = !matches(patterns[i]);
      if (!patterns[i].hidden) shownPatterns += 1;
    }
    var rows = document.querySelectorAll('tr.difference[data-kind]');
    for (i = 0; i < rows.length; i += 1) {
      rows[i].hidden = !matches(rows[i]);
      if (!rows[i].hidden) shownRows += 1;
    }
    var sections = document.querySelectorAll('section.request');
    for (i = 0; i < sections.length; i += 1) sections[i].hidden = sections[i].querySelector('tr.difference:not([hidden])') === null;
    count.textContent = 'showing ' + shownPatterns + ' of ' + patterns.length + ' patterns, ' + shownRows + ' of ' + rows.length + ' differences';
    count.setAttribute('data-shown-patterns', String(shownPatterns));
  }
  function remember() {
    var params = new URLSearchParams();
    if (endpointSelect.value !== '') params.set('endpoint', endpointSelect.value);
    if (kindSelect.value !== '') params.set('kind', kindSelect.value);
    history.replaceState(null, '', '#' + params.toString());
    apply();
  }
  var given = new URLSearchParams(location.hash.slice(1));
  if (given.has('endpoint')) endpointSelect.value = given.get('endpoint');
  if (given.has('kind')) kindSelect.value = given.get('kind');
  endpointSelect.addEventListener('change', remember);
  kindSelect.addEventListener('change', remember);
  apply();
})();
`;

const scriptHash = createHash('sha256').update(SCRIPT, 'utf8').digest('base64');

export const CONTENT_SECURITY_POLICY = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'; img-src 'none'; form-action 'none'; base-uri 'none'`;
