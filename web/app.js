// The taskd page (docs §26): plain ES module, no framework. It talks only to the JSON API
// of the origin that served it, with the token the user pasted (kept in localStorage).

const API = "/api/v1";
const $ = (id) => document.getElementById(id);
const store = {
  get: (k) => localStorage.getItem("taskd." + k),
  set: (k, v) => localStorage.setItem("taskd." + k, v),
  drop: (k) => localStorage.removeItem("taskd." + k),
};

const state = {
  token: store.get("token") || "",
  space: null,
  source: store.get("source") || "",
  tasks: [],
  rows: [], // tasks in shown order: {task, depth}
  selected: null,
  editing: null, // the task whose form is open: re-renders wait until it closes
  since: 0,
  lastWrite: null,
  canUndo: false,
  pollTimer: null,
  pollDelay: 500,
  stream: null, // the AbortController of the live stream
};

class ApiError extends Error {}

async function api(method, path, body) {
  const headers = { Authorization: "Bearer " + state.token };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const reply = await fetch(API + path, {
    method,
    headers,
    cache: "no-store", // always the server's current state, never a revalidated copy
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await reply.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!reply.ok) {
    throw new ApiError((json && (json.detail || json.title)) || `${reply.status} ${reply.statusText}`);
  }
  return json;
}

function showError(err) {
  const box = $("error");
  if (!err) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.textContent = err instanceof ApiError ? err.message : "Network error: " + err.message;
  box.hidden = false;
}

function spaceQuery() {
  return "spaceId=" + encodeURIComponent(state.space);
}

// A write: remember its version for undo, then show the new state.
async function write(method, path, body) {
  try {
    const sep = path.includes("?") ? "&" : "?";
    const answer = await api(method, path + sep + spaceQuery(), body);
    const v = answer && answer.data && answer.data.versionUpdatedAt;
    if (v != null) {
      state.lastWrite = v;
      updateUndo();
    }
    showError(null);
    await loadTasks();
    return answer;
  } catch (err) {
    showError(err);
    return null;
  }
}

// ---- start-up and pickers ----

async function start() {
  clearTimeout(state.pollTimer);
  if (state.stream) state.stream.abort();
  state.stream = null;
  if (!state.token) {
    $("main").hidden = true;
    return;
  }
  try {
    const [meAnswer, spacesAnswer] = await Promise.all([
      api("GET", "/me"),
      api("GET", "/spaces?limit=100"),
    ]);
    const me = meAnswer.data;
    const spaces = spacesAnswer.data || [];
    const saved = store.get("space");
    const ids = spaces.map((s) => s.spaceId);
    state.space = saved && ids.includes(saved) ? saved : me.defaultSpaceId;
    const pick = $("space");
    pick.replaceChildren(
      ...spaces.map((s) => option(s.spaceId, s.name + (s.isDefault ? " (default)" : ""))),
    );
    if (!ids.includes(state.space)) pick.append(option(state.space, state.space));
    pick.value = state.space;
    $("main").hidden = false;
    showError(null);
    // The tasks' pages start beside the pickers' lists; a saved source that is gone
    // (loadSources falls back to all tasks) loads them again.
    const source = state.source;
    await Promise.all([loadSources(), loadTasks()]);
    if (state.source !== source) await loadTasks();
    await detectUndo();
    live();
  } catch (err) {
    showError(err);
  }
}

function option(value, label) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label;
  return o;
}

async function loadSources() {
  const [lists, views] = await Promise.all([
    api("GET", "/lists?limit=100&" + spaceQuery()),
    api("GET", "/views?limit=100&" + spaceQuery()),
  ]);
  const pick = $("source");
  pick.replaceChildren(option("", "All tasks"));
  for (const l of lists.data) pick.append(option("list:" + l.id, "List: " + l.name));
  for (const v of views.data) pick.append(option("view:" + v.id, "View: " + v.name));
  const values = [...pick.options].map((o) => o.value);
  if (!values.includes(state.source)) state.source = "";
  pick.value = state.source;
}

async function detectUndo() {
  // Undo needs §23's activity routes; a server without them keeps the button hidden.
  try {
    await api("GET", "/activity?limit=1&" + spaceQuery());
    state.canUndo = true;
  } catch {
    state.canUndo = false;
  }
  updateUndo();
}

function updateUndo() {
  $("undo").hidden = !state.canUndo;
  $("undo").disabled = state.lastWrite == null;
}

// ---- tasks ----

async function loadTasks() {
  let query = "limit=100&" + spaceQuery();
  if (state.source.startsWith("list:")) query += "&listId=" + encodeURIComponent(state.source.slice(5));
  if (state.source.startsWith("view:")) query += "&viewId=" + encodeURIComponent(state.source.slice(5));
  const tasks = [];
  let cursor = null;
  let version = 0;
  for (let page = 0; page < 50; page++) {
    const answer = await api("GET", "/tasks?" + query + (cursor ? "&cursor=" + encodeURIComponent(cursor) : ""));
    tasks.push(...answer.data);
    version = answer.spaceVersion;
    cursor = answer.nextCursor;
    if (!cursor) break;
  }
  state.tasks = tasks;
  if (version > state.since) state.since = version;
  render();
}

// Tasks in their listing order, each followed by its subtasks (indented).
function ordered(tasks) {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const children = new Map();
  const roots = [];
  for (const t of tasks) {
    if (t.parentId && byId.has(t.parentId)) {
      if (!children.has(t.parentId)) children.set(t.parentId, []);
      children.get(t.parentId).push(t);
    } else {
      roots.push(t);
    }
  }
  const rows = [];
  const seen = new Set();
  const walk = (t, depth) => {
    if (seen.has(t.id)) return;
    seen.add(t.id);
    rows.push({ task: t, depth });
    for (const c of children.get(t.id) || []) walk(c, depth + 1);
  };
  for (const t of roots) walk(t, 0);
  return rows;
}

function isDone(t) {
  return t.status === "done" || t.status === "completed";
}

function render() {
  state.rows = ordered(state.tasks);
  if (state.editing) return;
  const list = $("tasks");
  list.replaceChildren(...state.rows.map(({ task, depth }) => row(task, depth)));
  if (!state.rows.some((r) => r.task.id === state.selected)) state.selected = null;
  markSelected();
}

function button(label, text, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  b.setAttribute("aria-label", label);
  b.addEventListener("click", onClick);
  return b;
}

function row(task, depth) {
  const li = document.createElement("li");
  li.className = "task" + (isDone(task) ? " done" : "");
  li.dataset.id = task.id;
  li.style.paddingLeft = depth * 1.5 + "rem";
  li.addEventListener("click", () => {
    state.selected = task.id;
    markSelected();
  });
  const box = document.createElement("input");
  box.type = "checkbox";
  box.checked = isDone(task);
  box.setAttribute("aria-label", "Done: " + task.name);
  box.addEventListener("change", () => toggle(task));
  const name = document.createElement("span");
  name.className = "name";
  name.textContent = task.name;
  const meta = document.createElement("span");
  meta.className = "meta";
  const due = task.dateDue ? "due " + new Date(task.dateDue).toLocaleString() : "";
  meta.textContent = [task.status, due].filter(Boolean).join(" · ");
  li.append(box, name, meta);
  // Past due and not finished (by the browser's clock, as of this render).
  if (task.dateDue && !isDone(task) && new Date(task.dateDue) < new Date()) {
    const late = document.createElement("span");
    late.className = "overdue";
    late.textContent = "overdue";
    li.append(late);
  }
  if (task.isBlocked) {
    const b = document.createElement("span");
    b.className = "blocked";
    b.textContent = "blocked";
    li.append(b);
  }
  li.append(
    button("Edit " + task.name, "✎", () => edit(task)),
    button("Move up " + task.name, "↑", () => moveTask(task, -1)),
    button("Move down " + task.name, "↓", () => moveTask(task, 1)),
    button("Indent " + task.name, "→", () => indent(task)),
    button("Outdent " + task.name, "←", () => outdent(task)),
    button("Delete " + task.name, "✕", () => remove(task)),
  );
  return li;
}

function markSelected() {
  for (const li of $("tasks").children) li.classList.toggle("selected", li.dataset.id === state.selected);
}

// Checking off sets `done`; un-checking sets the status it had before, `null` included
// (kept in localStorage across reloads; `null` when this page did not see it).
async function toggle(task) {
  const path = "/tasks/" + encodeURIComponent(task.id);
  const key = "before." + task.id;
  if (isDone(task)) {
    const kept = store.get(key);
    const before = kept === null ? null : JSON.parse(kept);
    if (await write("PATCH", path, { status: before })) store.drop(key);
  } else {
    store.set(key, JSON.stringify(task.status ?? null));
    await write("PATCH", path, { status: "done" });
  }
}

function siblingsOf(task) {
  const parent = state.tasks.some((t) => t.id === task.parentId) ? task.parentId : null;
  return state.rows
    .map((r) => r.task)
    .filter((t) => (state.tasks.some((p) => p.id === t.parentId) ? t.parentId : null) === parent);
}

async function indent(task) {
  const sibs = siblingsOf(task);
  const i = sibs.findIndex((t) => t.id === task.id);
  if (i <= 0) return;
  await write("PATCH", "/tasks/" + encodeURIComponent(task.id), { parentId: sibs[i - 1].id });
}

async function outdent(task) {
  if (!task.parentId) return;
  const parent = state.tasks.find((t) => t.id === task.parentId);
  await write("PATCH", "/tasks/" + encodeURIComponent(task.id), { parentId: parent ? parent.parentId : null });
}

// Reorder among siblings: a `sortOrder` between the two neighbours it moves between.
async function moveTask(task, step) {
  const sibs = siblingsOf(task);
  const i = sibs.findIndex((t) => t.id === task.id);
  const j = i + step;
  if (i < 0 || j < 0 || j >= sibs.length) return;
  const near = sibs[j].sortOrder;
  const far = sibs[j + step];
  const sortOrder = far ? (near + far.sortOrder) / 2 : near + step;
  await write("PATCH", "/tasks/" + encodeURIComponent(task.id), { sortOrder });
}

function localInput(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

// Edit name, notes and due date (in the browser's zone) in a form in place of the row.
function edit(task) {
  const li = [...$("tasks").children].find((e) => e.dataset.id === task.id);
  if (!li) return;
  state.editing = task.id;
  const form = document.createElement("form");
  form.className = "edit";
  const field = (tag, label, value, type) => {
    const f = document.createElement(tag);
    if (type) f.type = type;
    f.value = value || "";
    f.setAttribute("aria-label", label);
    return f;
  };
  const name = field("input", "Name", task.name);
  const notes = field("textarea", "Notes", task.notesMarkdown);
  const due = field("input", "Due date", localInput(task.dateDue), "datetime-local");
  const save = document.createElement("button");
  save.type = "submit";
  save.textContent = "Save";
  save.setAttribute("aria-label", "Save the task");
  const close = () => {
    state.editing = null;
    render();
  };
  form.append(name, notes, due, save, button("Cancel editing", "Cancel", close));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = {
      name: name.value,
      notesMarkdown: notes.value || null,
      dateDue: due.value ? new Date(due.value).toISOString() : null,
    };
    state.editing = null;
    if (!(await write("PATCH", "/tasks/" + encodeURIComponent(task.id), body))) render();
  });
  form.addEventListener("keydown", (e) => e.key === "Escape" && close());
  li.replaceChildren(form);
  name.focus();
}

async function remove(task) {
  await write("DELETE", "/tasks/" + encodeURIComponent(task.id));
}

async function add(name) {
  const body = { name };
  if (state.source.startsWith("list:")) body.listId = state.source.slice(5);
  return write("POST", "/tasks", body);
}

async function undo() {
  if (!state.canUndo || state.lastWrite == null) return;
  const v = state.lastWrite;
  state.lastWrite = null;
  updateUndo();
  await write("POST", "/activity/" + v + "/revert");
}

// ---- live: the §24 stream of what is shown, read with `fetch` (EventSource cannot send
// the token); any event reloads the tasks. A dropped stream reconnects with backoff
// (0.5 s doubling to 30 s); where the server refuses a stream (4xx), the change feed is
// polled twice a second instead.

function liveQuery() {
  let query = spaceQuery();
  if (state.source.startsWith("view:")) return query + "&viewId=" + encodeURIComponent(state.source.slice(5));
  if (state.source.startsWith("list:")) {
    query += "&filter=" + encodeURIComponent("listId = " + JSON.stringify(state.source.slice(5)));
  }
  return query;
}

let reloadTimer = null;
function reloadSoon() {
  clearTimeout(reloadTimer);
  reloadTimer = setTimeout(() => loadTasks().catch(showError), 30);
}

function live() {
  if (state.stream) state.stream.abort();
  clearTimeout(state.pollTimer);
  const ctrl = new AbortController();
  state.stream = ctrl;
  let delay = 500;
  const again = () => {
    if (ctrl.signal.aborted) return;
    $("live").textContent = "Reconnecting…";
    state.pollTimer = setTimeout(run, delay);
    delay = Math.min(delay * 2, 30000);
  };
  const run = async () => {
    try {
      const reply = await fetch(API + "/live?" + liveQuery(), {
        headers: { Authorization: "Bearer " + state.token, Accept: "text/event-stream" },
        cache: "no-store",
        signal: ctrl.signal,
      });
      if (reply.status >= 400 && reply.status < 500 && reply.status !== 429) {
        state.stream = null;
        return poll();
      }
      if (!reply.ok) return again();
      const reader = reply.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, "\n");
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: ?(.*)$/m.exec(block);
          if (event && event[1] !== "error") {
            delay = 500;
            $("live").textContent = "Live";
            reloadSoon();
          }
        }
      }
      again();
    } catch (err) {
      if (!ctrl.signal.aborted) again();
    }
  };
  run();
}

function poll() {
  clearTimeout(state.pollTimer);
  state.pollTimer = setTimeout(async () => {
    const space = state.space;
    try {
      const page = await api("GET", "/changes?limit=1&since=" + state.since + "&" + spaceQuery());
      if (space !== state.space) return;
      if (page.data.length > 0 || page.hasMore) {
        state.since = Math.max(state.since, page.spaceVersion);
        await loadTasks();
      }
      state.pollDelay = 500;
      $("live").textContent = "Live (polling)";
    } catch (err) {
      state.pollDelay = Math.min(state.pollDelay * 2, 30000);
      $("live").textContent = "Reconnecting…";
    }
    if (space === state.space && !state.stream) poll();
  }, state.pollDelay);
}

// ---- keyboard ----

function move(step) {
  if (state.rows.length === 0) return;
  let i = state.rows.findIndex((r) => r.task.id === state.selected);
  i = i < 0 ? 0 : Math.min(Math.max(i + step, 0), state.rows.length - 1);
  state.selected = state.rows[i].task.id;
  markSelected();
  $("tasks").children[i].scrollIntoView({ block: "nearest" });
}

function selectedTask() {
  return state.tasks.find((t) => t.id === state.selected);
}

document.addEventListener("keydown", (e) => {
  const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName) && e.target.type !== "checkbox";
  if (typing || e.ctrlKey || e.metaKey || e.altKey || $("main").hidden) return;
  const task = selectedTask();
  const actions = {
    "?": () => $("help").showModal(),
    n: () => $("new-name").focus(),
    j: () => move(1),
    k: () => move(-1),
    x: () => task && toggle(task),
    e: () => task && edit(task),
    J: () => task && moveTask(task, 1),
    K: () => task && moveTask(task, -1),
    "]": () => task && indent(task),
    "[": () => task && outdent(task),
    Delete: () => task && remove(task),
    u: () => undo(),
  };
  const act = actions[e.key];
  if (act) {
    e.preventDefault();
    act();
  }
});

// ---- wiring ----

$("token").value = state.token;
$("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  state.token = $("token").value.trim();
  if (state.token) store.set("token", state.token);
  start();
});
$("forget").addEventListener("click", () => {
  store.drop("token");
  store.drop("space");
  store.drop("source");
  state.token = "";
  $("token").value = "";
  $("tasks").replaceChildren();
  showError(null);
  start();
});
$("space").addEventListener("change", async () => {
  state.space = $("space").value;
  store.set("space", state.space);
  state.source = "";
  state.since = 0;
  try {
    await loadSources();
    await loadTasks();
  } catch (err) {
    showError(err);
  }
  live();
});
$("source").addEventListener("change", async () => {
  state.source = $("source").value;
  store.set("source", state.source);
  try {
    await loadTasks();
  } catch (err) {
    showError(err);
  }
  live();
});
$("add-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const name = $("new-name").value.trim();
  if (!name) return;
  if (await add(name)) $("new-name").value = "";
});
$("undo").addEventListener("click", undo);
$("help-button").addEventListener("click", () => $("help").showModal());
$("help-close").addEventListener("click", () => $("help").close());

start();
