// The cita web page: plain DOM, no framework, no CDN. Every text from the server goes in as text.
const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';

const ASK = `query Ask($instance: String!, $question: String!, $options: AskOptionsInput) {
  ask(instance: $instance, question: $question, options: $options) {
    language
    answer { text generator noAnswer unsupported glossedBy glosses { marker text }
      citations { marker collection path startLine endLine headings symbol issue url snippet verified } }
    route { top language reasons weights { collection weight } issueLookups symbolLookups }
    fusionMethod
    slots { collection slots fit }
    blocks { marker title text cut citation { collection path startLine endLine url issue } scores { bm25 dense fused via } }
    timings { step ms }
  }
}`;
const INSTANCES = `{ instances { name indexed model lastIndexed storeKind totalChunks chunks { collection chunks } job { id state phase done total } } }`;

function authHeaders() {
  const key = $('apikey').value.trim();
  return key ? { authorization: `Bearer ${key}` } : {};
}

async function gql(query, variables) {
  const headers = { 'content-type': 'application/json', ...authHeaders() };
  const res = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const body = await res.json().catch(() => ({ errors: [{ message: `HTTP ${res.status}` }] }));
  if (body.errors?.length) {
    const e = body.errors[0];
    throw new Error(`${e.message}${e.extensions?.code ? ` (${e.extensions.code})` : ''}`);
  }
  return body.data;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

/** Only http(s) URLs become links; the API sends no others, and the page does not trust that either. */
function httpUrl(url) {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

const where = (c) => (c.issue != null ? `${c.path}` : `${c.path}:${c.startLine}-${c.endLine}`);
const fmt = (v) => (v === null || v === undefined ? '–' : v !== 0 && Math.abs(v) < 0.001 ? v.toExponential(1) : v.toFixed(3));

function status(text, error = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', error);
}

let instances = [];
async function loadInstances() {
  try {
    instances = (await gql(INSTANCES)).instances;
  } catch (err) {
    status(`Could not list repositories: ${err.message}`, true);
    return;
  }
  const select = $('instance');
  select.replaceChildren(...instances.map((i) => el('option', { value: i.name }, i.indexed ? i.name : `${i.name} (not indexed)`)));
  showInstance();
}

function showInstance() {
  const i = instances.find((x) => x.name === $('instance').value);
  $('instance-info').textContent = !i
    ? ''
    : i.indexed
      ? `${i.totalChunks} chunks (${i.chunks.map((c) => `${c.collection} ${c.chunks}`).join(', ')}), indexed ${i.lastIndexed ?? '?'}`
      : 'not indexed yet';
}

function openCitation(c) {
  $('citation-title').textContent = `[${c.marker}] ${where(c)}`;
  $('citation-where').textContent = [c.collection, c.headings?.join(' › '), c.symbol, c.verified === false ? 'not verified' : 'verified'].filter(Boolean).join(' · ');
  $('citation-snippet').textContent = c.snippet ?? c.text ?? '';
  const link = $('citation-link');
  const url = httpUrl(c.url);
  if (url) {
    link.href = url;
    link.hidden = false;
  } else {
    link.removeAttribute('href');
    link.hidden = true;
  }
  $('citation').showModal();
}

/** The answer text with each `[n]` as a button that opens its source. */
function renderAnswer(answer, byMarker) {
  const box = $('answer');
  box.replaceChildren();
  let last = 0;
  for (const m of answer.text.matchAll(/\[(\d+)\]/g)) {
    box.append(answer.text.slice(last, m.index));
    const c = byMarker.get(Number(m[1]));
    box.append(c ? el('button', { type: 'button', class: 'marker', 'aria-label': `source ${m[1]}: ${where(c)}`, onclick: () => openCitation(c) }, m[0]) : m[0]);
    last = m.index + m[0].length;
  }
  box.append(answer.text.slice(last));
}

function renderSlots(slots, method) {
  const svg = $('slots-chart');
  svg.replaceChildren();
  const max = Math.max(1, ...slots.map((s) => s.slots));
  slots.forEach((s, i) => {
    const y = 8 + i * 28;
    const w = Math.round((s.slots / max) * 200);
    const label = document.createElementNS(SVG, 'text');
    label.setAttribute('x', '0');
    label.setAttribute('y', String(y + 14));
    label.textContent = s.collection;
    const bar = document.createElementNS(SVG, 'rect');
    for (const [k, v] of Object.entries({ x: 56, y, width: Math.max(w, 1), height: 18, class: `bar-${s.collection}` })) bar.setAttribute(k, String(v));
    const value = document.createElementNS(SVG, 'text');
    value.setAttribute('x', String(62 + w));
    value.setAttribute('y', String(y + 14));
    value.textContent = `${s.slots} (fit ${s.fit.toFixed(2)})`;
    svg.append(label, bar, value);
  });
  $('slots-caption').textContent = `${method}: ${slots.map((s) => `${s.collection} ${s.slots}`).join(', ')}`;
}

/** Over the glosses, in the answer's language: a machine translation of the quotes, not what the sources say. */
const GLOSSES_HEADING = {
  en: 'Machine translation of the quotes — a reading aid, not a quote',
  es: 'Traducción automática de las citas — para orientarse, no es una cita',
};

function render(r) {
  const citations = r.answer?.citations ?? [];
  const byMarker = new Map(citations.map((c) => [c.marker, c]));
  $('answer').lang = r.language;
  if (r.answer) renderAnswer(r.answer, byMarker);
  else $('answer').textContent = '(retrieval only)';
  const glosses = r.answer?.glosses ?? [];
  $('glosses').lang = r.language;
  $('glosses').replaceChildren(
    ...(glosses.length
      ? [
          el('p', { class: 'muted' }, `${GLOSSES_HEADING[r.language] ?? GLOSSES_HEADING.en} (${r.answer.glossedBy})`),
          el('ul', { class: 'muted' }, ...glosses.map((g) => el('li', {}, `[${g.marker}] ${g.text}`))),
        ]
      : []),
  );
  const unsupported = r.answer?.unsupported ?? [];
  $('unsupported').replaceChildren(
    ...(unsupported.length ? [el('p', { class: 'bad' }, `Unsupported sentences: ${unsupported.length}`), el('ul', {}, ...unsupported.map((s) => el('li', {}, s)))] : []),
  );
  $('citations').replaceChildren(
    ...(citations.length
      ? citations.map((c) =>
          el(
            'li',
            { value: String(c.marker) },
            el('button', { type: 'button', class: 'cite', onclick: () => openCitation(c) }, where(c)),
            c.headings?.length ? ` — ${c.headings.join(' › ')}` : c.symbol ? ` — ${c.symbol}` : '',
            ' ',
            httpUrl(c.url) ? el('a', { href: c.url, target: '_blank', rel: 'noopener noreferrer' }, 'GitHub') : c.url ? el('span', { class: 'muted' }, c.url) : '',
          ),
        )
      : [el('li', { class: 'muted' }, 'no citations')]),
  );
  $('route-top').textContent = `Favoured: ${r.route.top}; weights ${r.route.weights.map((w) => `${w.collection} ${w.weight.toFixed(2)}`).join(', ')}` +
    (r.route.issueLookups.length ? `; issues looked up: ${r.route.issueLookups.map((n) => `#${n}`).join(', ')}` : '') +
    (r.route.symbolLookups.length ? `; symbols looked up: ${r.route.symbolLookups.join(', ')}` : '');
  $('route-reasons').replaceChildren(...r.route.reasons.map((x) => el('li', {}, x)));
  renderSlots(r.slots, r.fusionMethod);
  $('blocks').tBodies[0].replaceChildren(
    ...r.blocks.map((b) =>
      el(
        'tr',
        {},
        el('td', {}, String(b.marker)),
        el('td', {}, el('span', { class: `tag ${b.citation.collection}` }, b.citation.collection)),
        el('td', {}, el('button', { type: 'button', class: 'cite', onclick: () => openCitation({ ...b.citation, marker: b.marker, snippet: b.text }) }, where(b.citation)), el('div', { class: 'muted' }, b.title)),
        el('td', { class: 'num' }, fmt(b.scores.bm25)),
        el('td', { class: 'num' }, fmt(b.scores.dense)),
        el('td', { class: 'num' }, fmt(b.scores.fused)),
        el('td', {}, b.scores.via),
      ),
    ),
  );
  $('timings').textContent = `Timings: ${r.timings.map((t) => `${t.step} ${Math.round(t.ms)} ms`).join(', ')}`;
  $('result').hidden = false;
}

// ---------------------------------------------------------------- views

function showView(name) {
  for (const tab of document.querySelectorAll('.view-tab')) {
    if (tab.dataset.view === name) tab.setAttribute('aria-current', 'page');
    else tab.removeAttribute('aria-current');
  }
  for (const v of document.querySelectorAll('.view')) v.hidden = v.id !== `view-${name}`;
  if (name === 'reports') loadReports();
  if (name === 'index') loadIndexState();
  else clearTimeout(indexTimer);
}

// ---------------------------------------------------------------- reports

async function loadReports() {
  $('reports-status').textContent = 'Loading reports…';
  try {
    const res = await fetch('/api/reports', { headers: authHeaders() });
    const body = await res.json();
    if (!res.ok) throw new Error(body.errors?.[0]?.message ?? `HTTP ${res.status}`);
    $('reports').tBodies[0].replaceChildren(
      ...body.reports.map((r) =>
        el(
          'tr',
          { 'data-report': r.name },
          el('td', {}, el('button', { type: 'button', class: 'cite', onclick: () => openReport(r) }, r.name)),
          el('td', {}, r.kind),
          el('td', {}, el('span', { class: `verdict ${r.status}` }, r.verdict)),
          el('td', {}, r.instance ?? ''),
          el('td', {}, r.createdAt ? r.createdAt.slice(0, 16).replace('T', ' ') : ''),
          el('td', {}, r.files.join(', ')),
        ),
      ),
    );
    $('reports-status').textContent = body.reports.length ? `${body.reports.length} reports.` : 'No reports in reports/.';
  } catch (err) {
    $('reports-status').textContent = `Could not list the reports: ${err.message}`;
  }
}

/** In place: the HTML report in a frame (or, with an API key to send, the Markdown fetched as text). */
async function openReport(r) {
  $('report-title').textContent = `${r.name} — ${r.verdict}`;
  $('report-view').hidden = false;
  const frame = $('report-frame');
  const text = $('report-text');
  const keyed = Object.keys(authHeaders()).length > 0;
  if (r.files.includes('html') && !keyed) {
    text.hidden = true;
    frame.hidden = false;
    frame.src = `/reports/${encodeURIComponent(r.name)}.html`;
  } else {
    frame.hidden = true;
    frame.removeAttribute('src');
    const file = r.files.includes('md') ? 'md' : 'json';
    const res = await fetch(`/reports/${encodeURIComponent(r.name)}.${file}`, { headers: authHeaders() });
    text.textContent = res.ok ? await res.text() : `Could not open the report (HTTP ${res.status}).`;
    text.hidden = false;
  }
  $('report-view').scrollIntoView?.();
}

// ---------------------------------------------------------------- index state

let indexTimer;
async function loadIndexState() {
  clearTimeout(indexTimer);
  let list;
  try {
    list = (await gql(INSTANCES)).instances;
  } catch (err) {
    $('index-status').textContent = `Could not read the index state: ${err.message}`;
    return;
  }
  const count = (i, c) => String(i.chunks.find((x) => x.collection === c)?.chunks ?? 0);
  const job = (j) => (!j ? 'none' : `${j.state}${j.phase ? ` (${j.phase})` : ''}: ${j.done} / ${j.total}${j.total ? ` (${Math.floor((100 * j.done) / j.total)}%)` : ''}`);
  $('index-state').tBodies[0].replaceChildren(
    ...list.map((i) =>
      el(
        'tr',
        { 'data-instance': i.name },
        el('th', { scope: 'row' }, i.name),
        el('td', { class: 'num' }, i.indexed ? String(i.totalChunks) : 'not indexed'),
        el('td', { class: 'num' }, count(i, 'docs')),
        el('td', { class: 'num' }, count(i, 'code')),
        el('td', { class: 'num' }, count(i, 'issues')),
        el('td', {}, i.model ?? ''),
        el('td', {}, i.lastIndexed ?? ''),
        el('td', {}, i.storeKind),
        el('td', { class: 'job' }, i.job ? el('progress', { max: String(i.job.total || 1), value: String(i.job.done) }) : '', ' ', job(i.job)),
      ),
    ),
  );
  const running = list.some((i) => i.job && (i.job.state === 'running' || i.job.state === 'queued'));
  $('index-status').textContent = running ? 'An index job is running; refreshed every 2 s.' : `Read at ${new Date().toLocaleTimeString()}.`;
  // While a job runs, its progress is followed.
  if (running && !$('view-index').hidden) indexTimer = setTimeout(loadIndexState, 2000);
}

for (const tab of document.querySelectorAll('.view-tab')) tab.addEventListener('click', () => showView(tab.dataset.view));
$('instance').addEventListener('change', showInstance);
$('ask-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const question = $('question').value.trim();
  if (!question) return;
  const button = $('ask');
  button.disabled = true;
  status('Asking…');
  const started = performance.now();
  try {
    const fusion = $('fusion').value;
    const data = await gql(ASK, { instance: $('instance').value, question, options: fusion ? { fusion } : null });
    render(data.ask);
    status(`Answered in ${Math.round(performance.now() - started)} ms.`);
    $('answer-h').focus?.();
  } catch (err) {
    status(err.message, true);
  } finally {
    button.disabled = false;
  }
});
$('apikey').value = sessionStorage.getItem('cita-api-key') ?? '';
$('apikey').addEventListener('change', () => sessionStorage.setItem('cita-api-key', $('apikey').value));
loadInstances();
