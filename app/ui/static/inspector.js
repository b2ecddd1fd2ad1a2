// The passport inspector's script: keeps the tenant key in this tab's session storage, sends
// it in the Authorization header to this service only, and puts the HTML fragments the
// service renders into the page. The address holds where you are (#/u/<user>/<tab>), never
// the key.
"use strict";

(() => {
  const STORE = "tessera.apiKey";
  const $ = (selector, root = document) => root.querySelector(selector);
  const enc = encodeURIComponent;

  class Refused extends Error {
    constructor(status, detail) {
      super(detail);
      this.status = status;
    }
  }

  const apiKey = () => sessionStorage.getItem(STORE);

  // Every request goes to a path of this origin: the key never leaves for another host.
  async function call(path, options = {}) {
    if (!path.startsWith("/") || path.startsWith("//")) {
      throw new Error(`not a path of this service: ${path}`);
    }
    const response = await fetch(path, {
      ...options,
      headers: { ...(options.headers || {}), Authorization: `Bearer ${apiKey()}` },
      credentials: "omit",
      cache: "no-store",
      redirect: "error",
    });
    if (!response.ok) {
      let detail = `${response.status} ${response.statusText}`;
      try {
        const problem = await response.json();
        detail = problem.detail || problem.title || detail;
      } catch (ignored) {
        // Not a problem document: the status says it.
      }
      throw new Refused(response.status, detail);
    }
    return response;
  }

  // Fragments are the service's own templates, escaped where they were rendered.
  async function load(path, target) {
    const response = await call(path);
    target.innerHTML = await response.text();
  }

  function show(id, text) {
    const element = $(id);
    element.textContent = text || "";
    element.hidden = !text;
  }

  function showLogin(message) {
    $("#login").hidden = false;
    $("#view").hidden = true;
    $("#keybar").hidden = true;
    show("#error", "");
    show("#notice", "");
    show("#login-error", message);
    $("#key-input").focus();
  }

  function showApp() {
    const key = apiKey();
    $("#login").hidden = true;
    $("#view").hidden = false;
    $("#keybar").hidden = false;
    // The prefix names a key in public (listings, revoking); the secret is never shown.
    $("#key-label").textContent = `key ${key.split("_").slice(0, 2).join("_")}_…`;
  }

  function failed(error) {
    if (error instanceof Refused && error.status === 401) {
      sessionStorage.removeItem(STORE);
      showLogin(`The service did not take this key: ${error.message}`);
      return;
    }
    show("#error", error.message);
  }

  function where() {
    const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
    const parts = path.split("/").filter(Boolean);
    return { parts, params: new URLSearchParams(query) };
  }

  function go(hash) {
    if (location.hash === hash) {
      route();
    } else {
      location.hash = hash;
    }
  }

  function userHash(user, tab, params) {
    const query = params && params.toString();
    return `#/u/${enc(user)}/${tab}${query ? `?${query}` : ""}`;
  }

  const TABS = {
    beliefs: (base, params) => `${base}/beliefs${only(params, ["version"])}`,
    timeline: (base, params) => `${base}/timeline${only(params, ["since", "until", "after"])}`,
    versions: (base, params) => `${base}/versions${only(params, ["cursor"])}`,
    agent: (base) => `${base}/agent`,
  };

  function only(params, names) {
    const kept = new URLSearchParams();
    for (const name of names) {
      if (params.get(name)) kept.set(name, params.get(name));
    }
    const query = kept.toString();
    return query ? `?${query}` : "";
  }

  let current = null;

  async function route() {
    show("#error", "");
    if (!apiKey()) {
      showLogin();
      return;
    }
    showApp();
    const { parts, params } = where();
    try {
      if (parts[0] === "u" && parts[1]) {
        const user = decodeURIComponent(parts[1]);
        const tab = TABS[parts[2]] ? parts[2] : "beliefs";
        current = { user, tab, params };
        const base = `/ui/f/users/${enc(user)}`;
        await load(base, $("#view"));
        for (const link of document.querySelectorAll("[data-tab]")) {
          link.classList.toggle("active", link.dataset.tab === tab);
          link.setAttribute("aria-current", link.dataset.tab === tab ? "page" : "false");
        }
        await load(TABS[tab](base, params), $("#panel"));
      } else {
        current = null;
        await load(`/ui/f/users${only(params, ["q", "cursor"])}`, $("#view"));
      }
    } catch (error) {
      failed(error);
    }
  }

  function withParams(changes) {
    const params = new URLSearchParams(current.params);
    for (const [name, value] of Object.entries(changes)) {
      if (value) params.set(name, value);
      else params.delete(name);
    }
    return params;
  }

  const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

  async function forget(turnId) {
    const path = `/users/${enc(current.user)}/turns/${enc(turnId)}`;
    const done = await (await call(path, { method: "DELETE" })).json();
    show(
      "#notice",
      `Forgotten: message ${turnId}, with ${count(done.derived_rows, "row")} and ` +
        `${count(done.beliefs, "belief")} derived only from it; ` +
        `${count(done.versions_rewritten, "earlier version")} rewritten. ` +
        `The passport is now at version ${done.version}. ` +
        `Receipt ${done.receipt.id} (${done.receipt.signature ? "signed" : "unsigned"}), ` +
        `kept at /users/${current.user}/receipts/${done.receipt.id}.`,
    );
    await route();
  }

  function confirmForget(button) {
    const entry = button.closest("[data-turn]");
    if (!entry || entry.querySelector(".confirm")) return;
    const box = document.createElement("div");
    box.className = "confirm";
    box.setAttribute("role", "alertdialog");
    const text = document.createElement("p");
    text.textContent =
      `Forget message ${entry.dataset.turn} for good? It leaves the passport and every ` +
      "stored version, with what was derived only from it. This cannot be undone.";
    const yes = document.createElement("button");
    yes.type = "button";
    yes.className = "danger";
    yes.dataset.forgetConfirm = entry.dataset.turn;
    yes.textContent = "Forget it";
    const no = document.createElement("button");
    no.type = "button";
    no.dataset.forgetCancel = "";
    no.textContent = "Keep it";
    box.append(text, yes, no);
    (entry.querySelector(".body") || entry).append(box);
    no.focus();
  }

  async function showContext(form) {
    const q = $("#agent-q", form).value.trim();
    const budget = $("#agent-budget", form).value;
    const params = new URLSearchParams({ budget_chars: budget });
    if (q) params.set("q", q);
    const response = await call(`/users/${enc(current.user)}/context?${params}`);
    const text = await response.text();
    const version = response.headers.get("X-Passport-Version");
    show("#agent-meta", `${text.length} of ${budget} characters · passport version ${version}`);
    show("#agent-context", text);
    show("#agent-why-lines", $("#agent-why", form).checked ? await whyLines(params) : "");
  }

  // Each memory's score as the ranker made it: plain BM25, then what each feature added.
  async function whyLines(params) {
    params.set("format", "json");
    const response = await call(`/users/${enc(current.user)}/context?${params}`);
    const body = await response.json();
    const lines = [];
    for (const memory of body.memories || []) {
      const why = memory.why;
      lines.push(`${memory.speaker}: ${memory.text.slice(0, 90)}`);
      if (!why) {
        lines.push(`  ${memory.role}: shown beside a match, not scored`);
        continue;
      }
      const adds = Object.entries(why.features)
        .filter(([, f]) => f.adds !== 0)
        .map(([name, f]) => `${name} ${f.value} (${f.adds > 0 ? "+" : ""}${f.adds})`);
      lines.push(`  score ${why.score} · bm25 ${why.bm25} · bias ${why.bias} · ${adds.join(" · ")}`);
    }
    return lines.join("\n");
  }

  const clicks = {
    "#forget-key": () => {
      sessionStorage.removeItem(STORE);
      showLogin();
    },
    "[data-load]": (el) => load(el.dataset.load, $(el.dataset.target)),
    "[data-users-page]": (el) => {
      const params = new URLSearchParams(where().params);
      if (el.dataset.usersPage) params.set("cursor", el.dataset.usersPage);
      else params.delete("cursor");
      go(`#/users?${params}`);
    },
    "[data-timeline-after]": (el) =>
      go(userHash(current.user, "timeline", withParams({ after: el.dataset.timelineAfter }))),
    "[data-timeline-clear]": () => go(userHash(current.user, "timeline")),
    "[data-versions-cursor]": (el) =>
      go(userHash(current.user, "versions", withParams({ cursor: el.dataset.versionsCursor }))),
    "[data-forget]": (el) => confirmForget(el),
    "[data-forget-cancel]": (el) => el.closest(".confirm").remove(),
    "[data-forget-confirm]": (el) => forget(el.dataset.forgetConfirm),
  };

  const submits = {
    "#key-form": async () => {
      const key = $("#key-input").value.trim();
      if (!key) return;
      sessionStorage.setItem(STORE, key);
      $("#key-input").value = "";
      try {
        await call("/ui/f/users");
      } catch (error) {
        failed(error);
        return;
      }
      route();
    },
    "[data-search]": (form) => {
      const q = $("#user-search", form).value.trim();
      go(q ? `#/users?q=${enc(q)}` : "#/users");
    },
    "[data-timeline-filter]": (form) => {
      const since = form.elements.since.value;
      const until = form.elements.until.value;
      go(userHash(current.user, "timeline", withParams({ since, until, after: "" })));
    },
    "[data-agent]": (form) => showContext(form),
  };

  function dispatch(handlers, event) {
    for (const [selector, handle] of Object.entries(handlers)) {
      const element = event.target.closest(selector);
      if (element) {
        event.preventDefault();
        Promise.resolve(handle(element)).catch(failed);
        return;
      }
    }
  }

  document.addEventListener("click", (event) => dispatch(clicks, event));
  document.addEventListener("submit", (event) => dispatch(submits, event));
  document.addEventListener("input", (event) => {
    if (event.target.id === "agent-budget") {
      $("#agent-budget-value").textContent = event.target.value;
    }
  });
  window.addEventListener("hashchange", () => {
    show("#notice", "");
    route();
  });
  route();
})();
