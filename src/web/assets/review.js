// The editgate review page's script: keys, decisions (whole, or hunk by hunk), the person's own version,
// paging and expanding, and live updates. The server renders every piece of HTML (escaped there); this script only inserts what
// the server sent, or sets textContent. Hand-written, no dependencies, no build step.

// The session's nonce, kept by sign-in.js when the sign-in link was opened: this origin's storage, which
// pages of other ports cannot read (the cookie, which every port of 127.0.0.1 receives, cannot decide).
const nonce = localStorage.getItem('editgate-review-nonce') ?? '';
const nonceHeaders = { 'X-Editgate-Nonce': nonce };
const body = document.body;
const changeId = body.dataset.change;
const layout = body.dataset.layout === 'split' ? 'split' : 'unified';
const proposedHash = body.dataset.hash;
/**
 * A session review (editgate review --session): an unchecked hunk is reverted, with its reason; one button
 * sends the choice as a change's decision does (`once` with `hunks`, and the note as `reason`). It grants
 * nothing: no grant buttons, and y/a/A/n/r/e do nothing here.
 */
const sessionReview = body.dataset.review === 'session';
/** The hash the next decision quotes: the proposed diff's, or that of the person's version. */
let hash = proposedHash;
/** The person's versions, by path, once they asked to see the diff of them. */
let edited = null;
let fileIndex = 0;

function byId(id) {
  return document.getElementById(id);
}

async function post(path, data) {
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', ...nonceHeaders },
    body: JSON.stringify(data),
  });
  const json = await response.json().catch(() => ({}));
  return { ok: response.ok, status: response.status, json };
}

async function getText(path) {
  const response = await fetch(path, { credentials: 'same-origin', headers: nonceHeaders });
  if (!response.ok)
    throw new Error((await response.json().catch(() => ({}))).error ?? `HTTP ${response.status}`);
  return response.text();
}

function setStatus(text, kind) {
  const status = byId('status');
  if (!status) return;
  status.textContent = text;
  status.hidden = !text;
  status.className = `status s-${kind}`;
}

/** Once answered (here or elsewhere) or withdrawn, nothing more can be decided on this page. */
function closeDecisions() {
  byId('decide')?.remove();
  for (const button of document.querySelectorAll('button.edit')) button.remove();
  for (const editor of document.querySelectorAll('.editor')) editor.remove();
  for (const input of document.querySelectorAll('input.hunk, input.file, input.why')) input.disabled = true;
  showConnection();
}

function setAllowEnabled(enabled) {
  for (const button of document.querySelectorAll('#decide button.allow')) button.disabled = !enabled;
}

let deciding = false;
async function decide(decision, reason) {
  if (!changeId || !byId('decide') || deciding) return;
  const data = { hash, decision };
  if (reason) data.reason = reason;
  if (edited && decision !== 'deny') data.edited = edited;
  else if (decision !== 'deny') {
    const hunks = hunkChoices();
    if (hunks) data.hunks = hunks;
  }
  deciding = true;
  try {
    const answer = await post(`/api/changes/${encodeURIComponent(changeId)}/decision`, data);
    if (answer.ok) {
      body.dataset.status = 'answered';
      setStatus(answer.json.text ?? 'Answered.', 'answered');
      closeDecisions();
    } else setStatus(answer.json.error ?? `Refused (HTTP ${answer.status}).`, 'refused');
  } catch (error) {
    setStatus(`Could not reach editgate: ${error.message}`, 'refused');
  } finally {
    deciding = false;
    showConnection();
  }
}

function showReason() {
  const box = document.querySelector('#decide .reason');
  if (!box) return;
  box.hidden = false;
  byId('reason').focus();
}

function hideReason() {
  const box = document.querySelector('#decide .reason');
  if (box) box.hidden = true;
}

function sendReason() {
  const text = byId('reason')?.value.trim() ?? '';
  decide('deny', text || undefined);
}

/** The same note with an approval: allowed once, and the agent reads the note ({ allow, reason }). */
function sendNote() {
  const text = byId('reason')?.value.trim() ?? '';
  decide('once', text || undefined);
}

// --- files: moving between them, the person's own version ----------------------------------------------------

function sections() {
  return [...document.querySelectorAll('section.file')];
}

function focusFile(index, scroll = true) {
  const all = sections();
  if (all.length === 0) return;
  fileIndex = Math.max(0, Math.min(all.length - 1, index));
  all.forEach((section, i) => {
    section.classList.toggle('current', i === fileIndex);
  });
  if (scroll) all[fileIndex].scrollIntoView({ block: 'start' });
}

async function openEditor(section) {
  const editor = section?.querySelector('.editor');
  if (!editor) return;
  const textarea = editor.querySelector('textarea');
  const path = section.dataset.path;
  if (!editor.dataset.loaded) {
    if (edited && Object.hasOwn(edited, path)) textarea.value = edited[path];
    else {
      const response = await fetch(
        `/api/changes/${encodeURIComponent(changeId)}/files/${encodeURIComponent(section.dataset.file)}`,
        { credentials: 'same-origin', headers: nonceHeaders },
      );
      const file = await response.json();
      if (!response.ok) {
        setStatus(file.error ?? 'This file cannot be edited.', 'refused');
        return;
      }
      textarea.value = file.after;
    }
    editor.dataset.loaded = 'true';
  }
  editor.hidden = false;
  textarea.focus();
}

async function previewEdits() {
  const versions = { ...(edited ?? {}) };
  for (const section of sections()) {
    const editor = section.querySelector('.editor');
    if (editor?.dataset.loaded) versions[section.dataset.path] = editor.querySelector('textarea').value;
  }
  const answer = await post(`/api/changes/${encodeURIComponent(changeId)}/edit-preview?view=${layout}`, {
    edited: versions,
  });
  if (!answer.ok) {
    setStatus(answer.json.error ?? `Refused (HTTP ${answer.status}).`, 'refused');
    return;
  }
  edited = versions;
  hash = answer.json.hash;
  // The person's version is written whole: choices of the proposal's hunks no longer apply.
  leftOut.clear();
  currentHunk = null;
  byId('files').innerHTML = answer.json.html;
  showSelection();
  observePages();
  body.dataset.edited = 'true';
  setStatus(
    'Your version: the diff below is what is written if you allow it. "Discard my edits" goes back to the proposed change.',
    'edited',
  );
  focusFile(fileIndex, false);
}

function discardEdits() {
  edited = null;
  hash = proposedHash;
  location.reload();
}

// --- hunks: which of them are written ---------------------------------------------------------------------
// Every hunk is written unless the person unchecks it; an unchecked hunk may get a reason, which the agent
// reads. The choices live here, not in the checkboxes: a huge diff's later pages are loaded as the person
// scrolls, and the whole file's checkbox covers hunks not loaded yet. The decision names each file with a
// hunk left out: `{ accept, reject: [{ hunk, reason? }] }`, 0-based, the library's own shape.

/** By file index: the hunks left out, each with the person's reason ('' for none). */
const leftOut = new Map();
/** The hunk the keys act on ([ and ] move it, x toggles it): its checkbox, once there is one. */
let currentHunk = null;

function hunksOf(file) {
  let found = leftOut.get(file);
  if (!found) leftOut.set(file, (found = new Map()));
  return found;
}

function sectionOf(file) {
  return document.querySelector(`section.file[data-file="${file}"]`);
}

/** The checkboxes, the reason boxes and the dimmed rows of `root` as the choices say. */
function showHunks(root = document) {
  for (const box of root.querySelectorAll('input.hunk')) {
    const file = Number(box.dataset.file);
    const hunk = Number(box.dataset.hunk);
    const out = leftOut.get(file)?.has(hunk) ?? false;
    box.checked = !out;
    const why = box.closest('td').querySelector('input.why');
    if (why) {
      why.hidden = !out;
      if (out && why.value !== leftOut.get(file).get(hunk)) why.value = leftOut.get(file).get(hunk);
    }
  }
  for (const group of root.querySelectorAll('tbody.hunk')) {
    const file = Number(group.closest('section.file')?.dataset.file);
    group.classList.toggle('left-out', leftOut.get(file)?.has(Number(group.dataset.hunk)) ?? false);
  }
}

function setHunk(file, hunk, written) {
  const out = hunksOf(file);
  if (written) out.delete(hunk);
  else if (!out.has(hunk)) out.set(hunk, '');
  const section = sectionOf(file);
  if (section) showHunks(section);
  showSelection();
}

/** Every hunk of a file written, or none (the reasons given so far are kept). */
function setFile(file, written) {
  const total = Number(sectionOf(file)?.dataset.hunks ?? 0);
  const out = hunksOf(file);
  for (let hunk = 0; hunk < total; hunk++) {
    if (written) out.delete(hunk);
    else if (!out.has(hunk)) out.set(hunk, '');
  }
  const section = sectionOf(file);
  if (section) showHunks(section);
  showSelection();
}

/** What Allow writes, in a line, when hunks are left out; each file's own checkbox; the Allow button's words. */
function showSelection() {
  let total = 0;
  let kept = 0;
  let filesTouched = 0;
  for (const section of document.querySelectorAll('section.file[data-hunks]')) {
    const file = Number(section.dataset.file);
    const count = Number(section.dataset.hunks);
    const out = leftOut.get(file)?.size ?? 0;
    total += count;
    kept += count - out;
    if (out > 0) filesTouched++;
    const box = section.querySelector('input.file');
    if (box) {
      box.checked = out < count;
      box.indeterminate = out > 0 && out < count;
    }
  }
  if (sessionReview) {
    showReviewChoice(total - kept, filesTouched, kept);
    return;
  }
  const line = byId('selection');
  if (!line) return;
  const partial = kept < total;
  line.hidden = !partial;
  line.textContent = !partial
    ? ''
    : kept === 0
      ? `No hunk is checked: Allow writes nothing, and the agent is told why (as a denial with your reasons).`
      : `${kept} of ${total} hunks checked: Allow writes only those; the agent is told which were left out and why.`;
  const once = document.querySelector('#decide button[data-decision="once"] .label');
  if (once) {
    once.dataset.whole ??= once.textContent;
    once.textContent = partial ? 'Apply the checked hunks' : once.dataset.whole;
  }
  // A note goes with the whole change; with hunks, each left out has its own reason.
  const note = document.querySelector('#decide button[data-decision="send-note"]');
  if (note && !document.querySelector('#decide button.allow[data-decision="once"][disabled]')) {
    note.disabled = partial;
    note.title = partial ? 'With hunks left out, give each its own reason beside it' : '';
  }
}

function plural(count, word) {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** A session review's line and its one button: what is reverted, in how many files, and what is kept. */
function showReviewChoice(reverted, files, kept) {
  const line = byId('selection');
  const label = document.querySelector('#decide button[data-decision="submit"] .label');
  const what = `${plural(reverted, 'hunk')} in ${plural(files, 'file')}`;
  const [sentence, button] =
    reverted === 0
      ? ['Keep everything: nothing is reverted.', 'Keep everything']
      : kept === 0
        ? [`Revert everything: ${what}. The agent is told why.`, `Revert ${what}`]
        : [`Revert ${what}, keep the rest. The agent is told which and why.`, `Revert ${what}`];
  if (line) {
    line.hidden = false;
    line.textContent = sentence;
  }
  if (label) label.textContent = button;
}

/** Sends a session review: the hunks to revert (and keep), with the note; nothing reverted: keep all. */
function submitReview() {
  const note = byId('note')?.value.trim() ?? '';
  decide('once', note || undefined);
}

/** The decision's `hunks`: each file with a hunk left out; undefined when every hunk is written. */
function hunkChoices() {
  const hunks = {};
  for (const section of document.querySelectorAll('section.file[data-hunks]')) {
    const out = leftOut.get(Number(section.dataset.file));
    if (!out || out.size === 0) continue;
    const accept = [];
    const reject = [];
    for (let hunk = 0; hunk < Number(section.dataset.hunks); hunk++) {
      if (!out.has(hunk)) accept.push(hunk);
      else {
        const reason = out.get(hunk).trim();
        reject.push(reason ? { hunk, reason } : { hunk });
      }
    }
    hunks[section.dataset.path] = { accept, reject };
  }
  return Object.keys(hunks).length > 0 ? hunks : undefined;
}

/** Moves the keys' hunk by `step` among the hunks on the page, and scrolls it into view. */
function moveHunk(step) {
  const boxes = [...document.querySelectorAll('input.hunk:not(:disabled)')];
  if (boxes.length === 0) return;
  const at = boxes.indexOf(currentHunk);
  const next =
    at === -1 ? (step > 0 ? 0 : boxes.length - 1) : Math.max(0, Math.min(boxes.length - 1, at + step));
  pointAt(boxes[next]);
  currentHunk.closest('tbody').scrollIntoView({ block: 'center' });
}

function pointAt(box) {
  document.querySelector('tbody.hunk.current')?.classList.remove('current');
  currentHunk = box;
  box.closest('tbody').classList.add('current');
  box.focus({ preventScroll: true });
  const section = box.closest('section.file');
  focusFile(sections().indexOf(section), false);
}

function toggleHunk() {
  if (!currentHunk?.isConnected) {
    const first = sections()[fileIndex]?.querySelector('input.hunk:not(:disabled)');
    if (!first) return;
    pointAt(first);
  }
  setHunk(Number(currentHunk.dataset.file), Number(currentHunk.dataset.hunk), !currentHunk.checked);
}

document.addEventListener('change', (event) => {
  const box = event.target;
  if (box.matches?.('input.hunk')) {
    pointAt(box);
    setHunk(Number(box.dataset.file), Number(box.dataset.hunk), box.checked);
  } else if (box.matches?.('input.file')) setFile(Number(box.dataset.file), box.checked);
});

document.addEventListener('input', (event) => {
  const why = event.target;
  if (!why.matches?.('input.why')) return;
  const out = leftOut.get(Number(why.dataset.file));
  if (out?.has(Number(why.dataset.hunk))) out.set(Number(why.dataset.hunk), why.value);
});

// --- the diff: next pages, unchanged regions -----------------------------------------------------------------

function fragmentQuery(params) {
  const query = new URLSearchParams({ change: changeId, view: layout, ...params });
  if (edited) query.set('variant', hash);
  return query.toString();
}

async function loadPage(button) {
  const group = button.closest('tbody');
  button.disabled = true;
  const html = await getText(
    `/fragments/page?${fragmentQuery({ file: button.dataset.file, page: button.dataset.page })}`,
  );
  group.insertAdjacentHTML('beforebegin', html);
  const section = group.closest('section.file');
  group.remove();
  if (!byId('decide')) closeDecisions();
  else showHunks(section);
  observePages();
}

async function expand(button) {
  const row = button.closest('tr');
  button.disabled = true;
  const { file, old, count } = button.dataset;
  const html = await getText(
    `/fragments/expand?${fragmentQuery({ file, old, new: button.dataset.new, count })}`,
  );
  row.insertAdjacentHTML('beforebegin', html);
  row.remove();
}

/** The next page of a diff loads as its button scrolls into view (it can be clicked too). */
const pager = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting || entry.target.disabled) continue;
      pager.unobserve(entry.target);
      loadPage(entry.target).catch((error) => setStatus(error.message, 'refused'));
    }
  },
  { rootMargin: '600px' },
);

function observePages() {
  for (const button of document.querySelectorAll('button.page')) pager.observe(button);
}

// --- keys typed before the change was on screen ---------------------------------------------------------------
// The terminal card's rule: a key that arrives before this change was on screen never answers it, and while
// the person is still typing (keys less than PAUSE_MS apart, in a run that began before the change appeared)
// the keys are typing, not answers; the first key after a pause answers. A run goes on across a page load
// (a new change opens as a new page): the previous page leaves the run in this tab's session storage, and a
// page that shows another change than the one before carries it on (the same change in another layout does
// not: it was on screen already).

const PAUSE_MS = 500;
/** A page that comes up longer than this after the last one left does not continue its run. */
const MAX_LOAD_MS = 10_000;
const TYPING_KEY = 'editgate-review-typing';
const clock = () => performance.timeOrigin + performance.now();
/** When this change was on screen: once its fragment is in the page (until then, no key answers). */
let shownAt = Number.POSITIVE_INFINITY;

/** The current run of keys: when it began and when its last key came (ms since the epoch). */
let run = carriedRun(clock());

function carriedRun(now) {
  try {
    const stored = JSON.parse(sessionStorage.getItem(TYPING_KEY) ?? 'null');
    if (!stored || ![stored.start, stored.last, stored.leftAt].every(Number.isFinite)) return undefined;
    if (stored.change === (changeId ?? null)) return undefined;
    // Typing when the last page was left, and this one came up soon after: the keys typed while it loaded
    // went nowhere, but the run goes on.
    if (stored.leftAt - stored.last < PAUSE_MS && now - stored.leftAt < MAX_LOAD_MS)
      return { start: stored.start, last: now };
  } catch {
    // No storage, or not ours: no run to carry.
  }
  return undefined;
}

function keepRun(leftAt) {
  try {
    sessionStorage.setItem(TYPING_KEY, JSON.stringify({ ...run, leftAt, change: changeId ?? null }));
  } catch {
    // Storage full or refused: the next page starts without a run.
  }
}

// Every key counts for the run, wherever it is typed (capture: before any handler below).
document.addEventListener(
  'keydown',
  (event) => {
    const at = performance.timeOrigin + event.timeStamp;
    if (!run || at - run.last >= PAUSE_MS) run = { start: at, last: at };
    else run.last = Math.max(run.last, at);
  },
  true,
);
window.addEventListener('pagehide', () => keepRun(clock()));

/** Whether the key being handled may act on this change: its run began once the change was on screen. */
function keyAnswers() {
  return run !== undefined && run.start >= shownAt;
}

function showTypingHint(show) {
  let hint = byId('typing');
  if (!hint && show) {
    hint = document.createElement('p');
    hint.id = 'typing';
    hint.className = 'typing';
    hint.setAttribute('role', 'status');
    hint.textContent =
      'Keys typed as this change appeared are not taken as answers: pause, then press the key you mean.';
    byId('decide')?.prepend(hint);
  }
  if (hint) hint.hidden = !show;
}

// --- events --------------------------------------------------------------------------------------------------

document.addEventListener('click', (event) => {
  const button = event.target.closest('button');
  if (!button || button.disabled) return;
  const run = (promise) => promise.catch((error) => setStatus(error.message, 'refused'));
  if (button.dataset.decision === 'submit') submitReview();
  else if (button.dataset.decision === 'reason') showReason();
  else if (button.dataset.decision === 'send-reason') sendReason();
  else if (button.dataset.decision === 'send-note') sendNote();
  else if (button.dataset.decision) decide(button.dataset.decision);
  else if (button.classList.contains('edit')) run(openEditor(button.closest('section.file')));
  else if (button.classList.contains('preview')) run(previewEdits());
  else if (button.classList.contains('discard')) discardEdits();
  else if (button.classList.contains('page')) run(loadPage(button));
  else if (button.classList.contains('expand')) run(expand(button));
});

const SHORTCUTS = sessionReview
  ? new Set(['j', 'k', 's', '[', ']', 'x'])
  : new Set(['j', 'k', 'y', 'a', 'A', 'n', 'r', 'e', 's', '[', ']', 'x']);

/** Where keys are text: a text box (a checkbox is not one: the page's keys work there). */
function isTextEntry(target) {
  if (!target) return false;
  if (target.isContentEditable || target.tagName === 'TEXTAREA') return true;
  return target.tagName === 'INPUT' && target.type !== 'checkbox';
}

document.addEventListener('keydown', (event) => {
  const target = event.target;
  if (target?.id === 'reason') {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      sendReason();
    } else if (event.key === 'Escape') hideReason();
    return;
  }
  // A hunk's reason: Enter or Esc go back to its checkbox (the reason is kept as typed).
  if (target?.matches?.('input.why') && (event.key === 'Enter' || event.key === 'Escape')) {
    event.preventDefault();
    target.closest('td').querySelector('input.hunk')?.focus();
    return;
  }
  if (isTextEntry(target)) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (!SHORTCUTS.has(event.key)) return;
  if (!keyAnswers()) {
    event.preventDefault();
    showTypingHint(true);
    return;
  }
  showTypingHint(false);
  // Stale: the grants are disabled (the note's button may be disabled for another reason).
  const allowed = !document.querySelector('#decide button[data-decision="once"][disabled]');
  switch (event.key) {
    case 'j':
      focusFile(fileIndex + 1);
      break;
    case 'k':
      focusFile(fileIndex - 1);
      break;
    case ']':
      moveHunk(1);
      break;
    case '[':
      moveHunk(-1);
      break;
    case 'x':
      if (byId('decide')) toggleHunk();
      break;
    case 'y':
      if (allowed) decide('once');
      break;
    case 'a':
      if (allowed) decide('file');
      break;
    case 'A':
      if (allowed) decide('all');
      break;
    case 'n':
      decide('deny');
      break;
    case 'r':
      if (byId('decide')) {
        event.preventDefault();
        showReason();
      }
      break;
    case 'e':
      event.preventDefault();
      openEditor(sections()[fileIndex]).catch((error) => setStatus(error.message, 'refused'));
      break;
    case 's': {
      const query = new URLSearchParams(location.search);
      query.set('view', layout === 'split' ? 'unified' : 'split');
      location.search = query.toString();
      break;
    }
    default:
      return;
  }
});

// --- the list of changes: a column, or on a phone's width a line that opens ----------------------------------

const narrow = window.matchMedia('(max-width: 720px)');

function showQueue(html) {
  byId('queue').innerHTML = html;
  const waiting = document.querySelectorAll('#queue li.q-pending, #queue li.q-stale').length;
  const summary = document.querySelector('#changes > summary');
  if (summary) summary.textContent = `Changes: ${waiting} waiting`;
}

function fitQueue() {
  const details = byId('changes');
  if (details) details.open = !narrow.matches;
}
fitQueue();
narrow.addEventListener('change', fitQueue);

function onChangeEvent(event) {
  const change = JSON.parse(event.data);
  getText(`/fragments/queue?current=${encodeURIComponent(changeId ?? '')}`)
    .then(showQueue)
    .catch(() => undefined);
  if (!changeId) {
    if (change.type === 'added') location.assign(`/?change=${encodeURIComponent(change.id)}&view=${layout}`);
    return;
  }
  if (change.id !== changeId) return;
  body.dataset.status = change.status;
  if (change.status === 'stale') {
    setStatus(change.text, 'stale');
    setAllowEnabled(false);
  } else if (change.status === 'answered' || change.status === 'withdrawn') {
    setStatus(change.text, change.status);
    closeDecisions();
  }
}

/** Live updates: EventSource sends no header, so the nonce goes in the query (this origin's own request). */
function listen() {
  const events = new EventSource(`/events?${new URLSearchParams({ nonce })}`);
  events.addEventListener('open', () => {
    connected = true;
    showConnection();
  });
  events.addEventListener('error', () => {
    connected = false;
    showConnection();
  });
  events.addEventListener('change', onChangeEvent);
}

/** Whether the live updates are flowing; undefined until the stream first opens or fails. */
let connected;

/**
 * The stream's state, as it matters to the person: live; or, once this page's change is answered, done (the
 * process that asked usually ends with its answer: that is no failure); else lost. Said again after a
 * decision, which may be answered after the stream already closed.
 */
function showConnection() {
  const live = byId('live');
  if (!live || connected === undefined) return;
  const done = body.dataset.status === 'answered' || body.dataset.status === 'withdrawn';
  if (connected) {
    live.textContent = 'live';
    live.className = 'live on';
    live.title = '';
  } else if (done && !deciding) {
    live.textContent = 'done';
    live.className = 'live done';
    live.title =
      'This change is answered. The editgate process that asked has finished or cannot be reached; a new change comes with a new link, or on this page when editgate review runs.';
  } else {
    live.textContent = 'disconnected: the editgate process may have ended';
    live.className = 'live off';
    live.title = '';
  }
}

/**
 * The changes come with the session's nonce: the frame the server sent holds none of them (the cookie that
 * fetched it reaches every port of 127.0.0.1).
 */
async function loadChanges() {
  const [queue, change] = await Promise.all([
    getText(`/fragments/queue?current=${encodeURIComponent(changeId ?? '')}`),
    changeId ? getText(`/fragments/change?${new URLSearchParams({ change: changeId, view: layout })}`) : '',
  ]);
  showQueue(queue);
  if (changeId) byId('change').innerHTML = change;
}

loadChanges()
  .then(() => {
    shownAt = clock();
    focusFile(0, false);
    // A change answered before the page came up: its hunks are shown, not offered.
    if (changeId && !byId('decide')) closeDecisions();
    showSelection();
    observePages();
    listen();
  })
  .catch((error) => {
    const main = byId('change');
    main.textContent = '';
    const message = document.createElement('p');
    message.className = 'status s-refused';
    message.textContent = nonce
      ? `The changes could not be loaded: ${error.message}`
      : 'This browser has no session nonce for this page (it is kept when a sign-in link is opened): open a new sign-in link (editgate review --link, or the one editgate printed).';
    main.append(message);
  })
  .finally(() => {
    document.documentElement.dataset.ready = 'true';
  });
