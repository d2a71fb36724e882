// The local console's page: plain JavaScript, no library. Every value from the server is shown
// as text (textContent), never as HTML; every API call carries this run's key in the console's
// header, which a page of another origin cannot send. The key comes in the URL's fragment (never
// sent to a server), is kept in this tab's sessionStorage so that a reload works, and is taken
// out of the address bar.
'use strict';

const KEY_HEADER = 'x-plant-store-console';
const KEY_ITEM = 'plant-store-console-key';
const $ = (selector) => document.querySelector(selector);

/** This run's key: from `#key=` (then kept and removed from the address bar), else the kept one. */
function takeKey() {
  const given = new URLSearchParams(location.hash.slice(1)).get('key');
  if (given) {
    sessionStorage.setItem(KEY_ITEM, given);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(KEY_ITEM) ?? undefined;
}
let key = takeKey();

/** Without this run's key (none, or an earlier run's): one line saying where to find it. */
function needKey() {
  key = undefined;
  sessionStorage.removeItem(KEY_ITEM);
  $('#live').textContent = '';
  const notice = $('#no-key');
  notice.hidden = false;
  notice.textContent =
    "Open the console URL npm start printed: it carries this run's key (it is also in the file console-url in the data directory, .plant-store/ by default).";
}

/** An API call with the key; a refusal (a missing or another run's key) shows `needKey`. */
async function call(path, init = {}) {
  if (!key) {
    needKey();
    throw new Error('no console key');
  }
  const response = await fetch(`/api/${path}`, {
    ...init,
    headers: { ...init.headers, [KEY_HEADER]: key },
  });
  if (response.status === 403) {
    needKey();
    throw new Error('refused');
  }
  return response;
}

/** An element with attributes (`on…` as listeners) and children (strings become text). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'className') node.className = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A response's JSON, or `{error}` saying its status when it has none. */
async function answerOf(response) {
  try {
    return await response.json();
  } catch {
    return { error: `the console answered ${response.status} ${response.statusText}` };
  }
}

/** A read's answer; an error answer (not 2xx) throws its message. */
async function get(path) {
  const response = await call(path);
  const answer = await answerOf(response);
  if (!response.ok) throw new Error(answer.error ?? `the console answered ${response.status}`);
  return answer;
}

/** A failed load or click, in #result; nothing when the key is missing (#no-key says so). */
function showError(error) {
  if (!key) return;
  const result = $('#result');
  result.hidden = false;
  result.className = 'bad';
  result.textContent = String(error?.message ?? error);
}

/** Runs a loader or a click's work, showing its failure rather than leaving it uncaught. */
function guarded(work) {
  return (...args) => {
    try {
      return Promise.resolve(work(...args)).catch(showError);
    } catch (error) {
      showError(error);
    }
  };
}

async function act(body) {
  const response = await call('actions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await answerOf(response);
  const lines = answer.error ? [answer.error] : [...(answer.out ?? []), ...(answer.err ?? [])];
  const result = $('#result');
  result.hidden = false;
  result.className = response.ok ? '' : 'bad';
  result.textContent = lines.join('\n') || (response.ok ? 'done' : 'failed');
  return { ok: response.ok, status: response.status, answer };
}

// ---- tabs
const loaders = {};
for (const button of document.querySelectorAll('nav button')) {
  button.addEventListener('click', () => {
    for (const b of document.querySelectorAll('nav button')) {
      b.classList.toggle('active', b === button);
      if (b === button) b.setAttribute('aria-current', 'page');
      else b.removeAttribute('aria-current');
    }
    for (const s of document.querySelectorAll('.tab'))
      s.classList.toggle('active', s.id === button.dataset.tab);
    $('#result').hidden = true;
    const load = loaders[button.dataset.tab];
    if (load) guarded(load)();
  });
}

// ---- invocations
let version = -1;
let openSeq;
let entries = [];

function statusClass(status) {
  if (typeof status === 'number') return `s${String(status)[0]}`;
  return /^(error|timeout|crash|throttled|deny|denied)|failed/.test(String(status ?? ''))
    ? 'bad'
    : '';
}

function ms(value) {
  return value === null || value === undefined ? '' : `${value.toFixed(1)} ms`;
}

/**
 * The list, each row opened by a click or by its first cell's button (Tab, then Enter or Space).
 * A row's button keeps the focus when the list is drawn again.
 */
function renderEntries() {
  const body = $('#entries tbody');
  const focused = document.activeElement?.closest?.('#entries tbody tr')?.dataset.seq;
  body.replaceChildren(
    ...entries.map((e) =>
      el(
        'tr',
        {
          'data-seq': e.seq,
          className: [e.seq === openSeq ? 'open' : '', e.denied ? 'has-denial' : ''].join(' '),
          onclick: guarded(() => openEntry(e.seq)),
        },
        el(
          'td',
          {},
          el(
            'button',
            {
              className: 'open-entry',
              'aria-label': `Open ${e.functionName ?? 'gateway'} ${e.source} at ${new Date(e.time).toLocaleTimeString()}`,
              'aria-expanded': e.seq === openSeq,
              'aria-controls': 'detail',
            },
            new Date(e.time).toLocaleTimeString(),
          ),
        ),
        el('td', { className: 'mono' }, e.path ? `${e.source}  ${e.path}` : e.source),
        el('td', {}, e.functionName ?? '(gateway)'),
        el(
          'td',
          { className: statusClass(e.status) },
          e.ended ? String(e.status ?? '') : 'running',
          e.denied ? el('span', { className: 'denied' }, ' IAM denied') : '',
        ),
        el('td', {}, ms(e.durationMs)),
        el('td', {}, e.cold === null ? '' : e.cold ? 'cold' : 'warm'),
        el('td', {}, e.maxMemoryMb === null ? '' : `${e.maxMemoryMb} MB`),
        el('td', { className: 'id' }, e.requestId ?? e.lambdaRequestId ?? ''),
      ),
    ),
  );
  if (focused !== undefined) body.querySelector(`tr[data-seq="${focused}"] button`)?.focus();
}

/** Failed polls in a row; past `GONE_AFTER`, npm start has stopped or started again. */
let failedPolls = 0;
const GONE_AFTER = 3;

async function poll() {
  if (!key) return;
  if (document.visibilityState === 'visible') {
    try {
      const answer = await get(`entries?version=${version}`);
      $('#live').textContent = 'live';
      if (failedPolls >= GONE_AFTER) $('#no-key').hidden = true;
      failedPolls = 0;
      if (answer.entries) {
        version = answer.version;
        entries = answer.entries;
        renderEntries();
        const open = entries.find((e) => e.seq === openSeq);
        if (open) await openEntry(openSeq, true);
      }
    } catch {
      if (!key) return;
      $('#live').textContent = 'npm start is not answering';
      failedPolls += 1;
      if (failedPolls === GONE_AFTER) {
        const notice = $('#no-key');
        notice.hidden = false;
        notice.textContent =
          'npm start is not answering. If it started again, open the console URL it printed: each start makes a new key and may pick another port (the URL is also in the file console-url in the data directory, .plant-store/ by default).';
      }
    }
  }
  setTimeout(poll, 1000);
}

function pre(value) {
  return el('pre', {}, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

/** The request an entry shows: an HTTP event's method, path, headers and body, or the event. */
function requestOf(d) {
  const e = d.event;
  if (e && e.requestContext && e.requestContext.http) {
    const parts = [
      `${e.requestContext.http.method} ${e.rawPath}${e.rawQueryString ? `?${e.rawQueryString}` : ''}`,
      ...Object.entries(e.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    ];
    if (e.body !== undefined) parts.push('', e.isBase64Encoded ? `(base64) ${e.body}` : e.body);
    return pre(parts.join('\n'));
  }
  if (e) return pre(e);
  if (d.requestHeaders) {
    return pre(
      [d.source, ...Object.entries(d.requestHeaders).map(([k, v]) => `${k}: ${v}`)].join('\n'),
    );
  }
  return pre('(none)');
}

/** The answer: the gateway's (status, headers, body as sent), else what the function returned. */
function responseOf(d) {
  if (d.response) {
    const r = d.response;
    return pre(
      [`${r.status}`, ...Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`), '', r.body].join(
        '\n',
      ),
    );
  }
  if (d.failure) return pre(`failed: ${d.failure}`);
  return pre(d.result ?? '(none)');
}

/**
 * Opens entry `seq` in the detail pane, drawn again on each `refresh`. Opening moves the focus to
 * the pane's heading (after the whole list, a keyboard would otherwise Tab through every row);
 * drawing it again keeps the focus on the control that had it (`data-focus`).
 */
async function openEntry(seq, refresh = false) {
  openSeq = seq;
  if (!refresh) renderEntries();
  const detail = $('#detail');
  const focused = detail.contains(document.activeElement)
    ? document.activeElement.dataset.focus
    : undefined;
  let d;
  try {
    d = await get(`entries/${seq}`);
  } catch (error) {
    detail.hidden = false;
    return detail.replaceChildren(el('p', { className: 'bad' }, error.message));
  }
  detail.hidden = false;
  const replayable = d.functionName && /^queue /.test(d.source) && d.ended;
  detail.replaceChildren(
    el(
      'h2',
      { tabindex: '-1', 'data-focus': 'heading' },
      `${d.functionName ?? 'gateway'} · ${d.source}${d.path ? ` ${d.path}` : ''} · ${d.ended ? d.status : 'running'}`,
    ),
    el(
      'p',
      { className: 'mono' },
      [
        d.requestId && `request id ${d.requestId}`,
        d.lambdaRequestId && `Lambda request id ${d.lambdaRequestId}`,
        d.durationMs !== null && `duration ${ms(d.durationMs)}`,
        d.cold !== null && (d.cold ? `cold (init ${ms(d.initMs)})` : 'warm'),
        d.maxMemoryMb !== null && `peak memory ${d.maxMemoryMb} MB`,
      ]
        .filter(Boolean)
        .join(' · '),
    ),
    ...(d.denials.length
      ? [
          el('h3', { className: 'denied' }, 'IAM denied'),
          ...d.denials.map((x) =>
            el('div', { className: 'denial mono' }, x.line, el('br'), x.hint),
          ),
        ]
      : []),
    replayable
      ? el(
          'button',
          {
            className: 'action',
            'data-focus': 'replay',
            onclick: guarded(() => act({ action: 'replay-delivery', seq: d.seq })),
          },
          'Replay this delivery',
        )
      : '',
    el('h3', {}, 'Request'),
    requestOf(d),
    el('h3', {}, 'Response'),
    responseOf(d),
    el('h3', {}, 'Log'),
    pre(d.lines.length ? d.lines.join('\n') : '(no lines)'),
  );
  const target = refresh ? focused : 'heading';
  if (target) detail.querySelector(`[data-focus="${target}"]`)?.focus();
}

// ---- tables of rows (tokens, subscribers, dead letters, attempts)
function rowsTable(rows, actions = () => []) {
  if (!rows.length) return el('p', {}, 'none');
  const names = Object.keys(rows[0]);
  return el(
    'table',
    {},
    el('thead', {}, el('tr', {}, ...names.map((n) => el('th', {}, n)), el('th', {}, ''))),
    el(
      'tbody',
      {},
      ...rows.map((row) =>
        el('tr', {}, ...names.map((n) => el('td', {}, row[n])), el('td', {}, ...actions(row))),
      ),
    ),
  );
}

/** A row's button: `name` says what it acts on ("Revoke tok_…"), for a screen reader. */
function button(label, onclick, name) {
  return el(
    'button',
    { className: 'action', onclick: guarded(onclick), 'aria-label': name },
    label,
  );
}

function notes(answer) {
  return (answer.notes ?? []).map((n) => el('p', { className: 'note' }, n));
}

/** A tab's data; a failed load is shown in `out` as an error, and answers `undefined`. */
async function loadInto(out, path) {
  try {
    return await get(path);
  } catch (error) {
    if (key) out.replaceChildren(el('p', { className: 'bad', role: 'alert' }, error.message));
    return undefined;
  }
}

loaders.tokens = async () => {
  const answer = await loadInto($('#tokens-out'), 'tokens');
  if (!answer) return;
  $('#tokens-out').replaceChildren(
    rowsTable(answer.rows, (row) => [
      button(
        'Revoke',
        async () => {
          if (!confirm(`Revoke ${row.tokenId} (${row.name})?`)) return;
          await act({ action: 'revoke', tokenId: row.tokenId });
          await loaders.tokens();
        },
        `Revoke ${row.tokenId} (${row.name})`,
      ),
    ]),
    ...notes(answer),
  );
};

loaders.subscribers = async () => {
  const answer = await loadInto($('#subscribers-out'), 'subscribers');
  if (!answer) return;
  $('#subscribers-out').replaceChildren(
    rowsTable(answer.rows, (row) => [
      button(
        'Attempts',
        async () => {
          const out = $('#attempts-out');
          const path = `subscribers/${encodeURIComponent(row.subscriberId)}/attempts`;
          const attempts = await loadInto(out, path);
          if (!attempts) return;
          out.replaceChildren(
            el('h3', {}, `Recent attempts of ${row.subscriberId}`),
            rowsTable(attempts.rows),
            ...notes(attempts),
          );
        },
        `Attempts of ${row.subscriberId}`,
      ),
      button(
        'Enable',
        async () => {
          await act({ action: 'enable', subscriberId: row.subscriberId });
          await loaders.subscribers();
        },
        `Enable ${row.subscriberId}`,
      ),
      button(
        'Replay…',
        async () => {
          const since = prompt(
            'Replay the plants stored since (ISO time):',
            new Date(Date.now() - 3600e3).toISOString(),
          );
          if (since) await act({ action: 'replay', since, subscriberId: row.subscriberId });
        },
        `Replay to ${row.subscriberId}…`,
      ),
    ]),
    ...notes(answer),
  );
};

loaders['dead-letters'] = async () => {
  const answer = await loadInto($('#dead-letters-out'), 'dead-letters');
  if (!answer) return;
  $('#dead-letters-out').replaceChildren(
    rowsTable(answer.rows, (row) => [
      button(
        'Redrive',
        async () => {
          await act({ action: 'redrive', webhookId: row.webhookId });
          await loaders['dead-letters']();
        },
        `Redrive ${row.webhookId}`,
      ),
    ]),
    answer.rows.length
      ? button('Redrive all', async () => {
          await act({ action: 'redrive' });
          await loaders['dead-letters']();
        })
      : '',
    ...notes(answer),
  );
};

// ---- plants
let plantCursor;
async function showPlants(cursor) {
  const form = new FormData($('#plants-form'));
  const query = new URLSearchParams();
  for (const key of ['id', 'tag', 'limit'])
    if (form.get(key)) query.set(key, String(form.get(key)).trim());
  if (cursor) query.set('cursor', cursor);
  let answer;
  try {
    answer = await get(`plants?${query}`);
  } catch (error) {
    return $('#plants-out').replaceChildren(el('p', { className: 'bad' }, error.message));
  }
  plantCursor = answer.next;
  const columns = [...new Set(answer.items.flatMap((item) => Object.keys(item)))];
  columns.sort((a, b) => (a === 'id' ? -1 : b === 'id' ? 1 : 0));
  $('#plants-out').replaceChildren(
    answer.notice ? el('p', { className: 'notice' }, answer.notice) : '',
    answer.items.length
      ? el(
          'table',
          {},
          el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', {}, c)))),
          el('tbody', {}, ...answer.items.map((item) => plantRow(item, columns))),
        )
      : answer.notice
        ? ''
        : el('p', {}, 'no plants'),
    plantCursor ? button('Next page', () => showPlants(plantCursor)) : '',
  );
}

/** A plant's row; a deleted plant's tombstone muted and struck through, marked with its time. */
function plantRow(item, columns) {
  const deleted = typeof item.deletedAt === 'string';
  return el(
    'tr',
    { className: deleted ? 'tombstone' : '' },
    ...columns.map((c) =>
      el(
        'td',
        { className: c === 'id' ? 'id' : '' },
        item[c] === undefined
          ? ''
          : typeof item[c] === 'string'
            ? item[c]
            : JSON.stringify(item[c]),
        c === 'id' && deleted
          ? el('span', { className: 'badge' }, `deleted ${item.deletedAt}`)
          : '',
      ),
    ),
  );
}
$('#plants-form').addEventListener('submit', (event) => {
  event.preventDefault();
  guarded(showPlants)();
});
loaders.plants = () => showPlants();

// ---- state
loaders.state = async () => {
  const answer = await loadInto($('#states-out'), 'states');
  if (!answer) return;
  $('#states-out').textContent = answer.names.join(', ') || 'none yet';
};
$('#state-form').addEventListener(
  'submit',
  guarded(async (event) => {
    event.preventDefault();
    const command = event.submitter?.dataset.command;
    const form = new FormData(event.target);
    const name = String(form.get('name') ?? '');
    const tokens = form.get('tokens') === 'on';
    const question = {
      reset: tokens
        ? 'Remove every plant, subscriber and token (the dev token too)?'
        : 'Remove every plant and subscriber (the tokens stay)?',
      load: `Replace all the data (plants, subscribers, tokens, dead letters) with the saved state ${name}? What it does not hold is removed.`,
    }[command];
    if (question && !confirm(question)) return;
    const body = { action: 'state', command, name, tokens };
    const done = await act(body);
    // The server refuses to replace a saved state unasked: ask, then send again.
    if (done.status === 409 && done.answer.exists) {
      if (confirm(`A state named ${name} is saved already. Overwrite it?`)) {
        await act({ ...body, overwrite: true });
      }
    }
    await loaders.state();
  }),
);
$('#seed-form').addEventListener(
  'submit',
  guarded(async (event) => {
    event.preventDefault();
    await act({
      action: 'state',
      command: 'seed',
      text: String(new FormData(event.target).get('text')),
    });
  }),
);

if (key) poll();
else needKey();
