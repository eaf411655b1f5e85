// quire's web page: jobs from files, live progress, the result rendered and as source.
// Follows the server it is served by: the form's fields come from its OpenAPI document, the
// OCR providers' readiness from `formats` and `ready`. Every request goes through `api()`,
// which adds the API key (kept in localStorage only) as X-API-Key.
'use strict';
(() => {
  const API = document.querySelector('meta[name="quire-api"]').content;
  const $ = (id) => document.getElementById(id);
  const KEY_STORE = 'quire.apiKey';
  const FINAL = new Set(['completed', 'failed']);
  const SOURCE_LIMIT = 2 * 1024 * 1024; // characters of source shown at once
  const RENDER_LIMIT = 8 * 1024 * 1024; // characters of Markdown rendered at once
  const TREE_CHUNK = 200; // children of a JSON node shown before "Show more"

  let apiKey = '';
  try { apiKey = localStorage.getItem(KEY_STORE) || ''; } catch (_) { /* storage off */ }

  // ---------- HTTP ----------
  function withKey(headers) {
    const h = new Headers(headers || {});
    if (apiKey) h.set('X-API-Key', apiKey);
    return h;
  }
  async function api(path, opts = {}) {
    const res = await fetch(API + path, { ...opts, headers: withKey(opts.headers) });
    if (res.status === 401) askForKey();
    return res;
  }
  async function detailOf(res) {
    try {
      const body = await res.json();
      if (typeof body.detail === 'string') return body.detail;
      if (Array.isArray(body.detail)) {
        return body.detail.map((d) => {
          const where = (d.loc || []).filter((p) => p !== 'body').join('.');
          return where ? `${where}: ${d.msg}` : d.msg;
        }).join('; ');
      }
    } catch (_) { /* not JSON */ }
    return `The server answered HTTP ${res.status}.`;
  }
  function askForKey() {
    $('more').open = true;
    say(apiKey ? 'The server refused this API key. Check it under More settings.'
      : 'This server needs an API key: enter it under More settings.', true);
  }
  function say(text, bad) {
    const m = $('form-msg');
    m.textContent = text;
    m.classList.toggle('bad', !!bad);
  }

  // ---------- the form, from the server's OpenAPI document ----------
  const KNOWN = new Set(['file', 'output_format', 'use_ocr', 'ocr_provider']);
  const LABELS = {
    md: 'Markdown', json: 'JSON', chunks: 'Chunks (JSON, for retrieval)',
    image_mode: 'Images', ocr_language: 'OCR language', pages: 'Pages', password: 'Password',
    force_ocr: 'OCR every page, even with a text layer', webhook_url: 'Webhook URL',
  };
  const label = (name) => LABELS[name] || (name[0].toUpperCase() + name.slice(1).replace(/_/g, ' '));
  const plain = (text) => String(text || '').replace(/`([^`]*)`/g, '$1').replace(/\*\*([^*]*)\*\*/g, '$1');
  let extraFields = []; // {name, el, kind}

  function resolve(spec, schema) {
    for (let i = 0; schema && schema.$ref && i < 8; i++) {
      schema = ((spec.components || {}).schemas || {})[schema.$ref.split('/').pop()];
    }
    return schema || {};
  }
  function types(schema) { return [].concat(schema.type || []); }

  function buildField(name, schema, required) {
    const id = `f_${name}`;
    const wrap = document.createElement('div');
    const desc = plain(schema.description);
    const hint = document.createElement('p');
    hint.className = 'hint';
    hint.id = `${id}_hint`;
    hint.textContent = desc;
    let el;
    let kind = 'text';
    const values = (schema.enum || []).filter((v) => typeof v === 'string' && v !== '');
    if (types(schema).includes('boolean')) {
      kind = 'bool';
      wrap.className = 'check';
      el = document.createElement('input');
      el.type = 'checkbox';
      el.id = id;
      const l = document.createElement('label');
      l.htmlFor = id;
      l.textContent = label(name);
      wrap.append(el, l);
      if (desc) el.setAttribute('aria-describedby', hint.id);
      const outer = document.createElement('div');
      outer.append(wrap);
      if (desc) outer.append(hint);
      return { name, el, kind, node: outer };
    }
    wrap.className = 'field';
    const l = document.createElement('label');
    l.htmlFor = id;
    l.textContent = label(name);
    if (values.length) {
      kind = 'select';
      el = document.createElement('select');
      if (!required) el.append(new Option(schema.default ? `Server default (${schema.default})` : 'Server default', ''));
      for (const v of values) el.append(new Option(LABELS[v] ? `${LABELS[v]} (${v})` : v, v));
    } else {
      el = document.createElement('input');
      const t = types(schema);
      el.type = /password/.test(name) ? 'password'
        : (t.includes('integer') && !t.includes('string')) ? 'number'
          : schema.format === 'uri' ? 'url' : 'text';
      if (el.type === 'password') el.autocomplete = 'off';
      if (schema.maxLength) el.maxLength = schema.maxLength;
      if (schema.example !== undefined) el.placeholder = String(schema.example);
    }
    el.id = id;
    if (desc) el.setAttribute('aria-describedby', hint.id);
    wrap.append(l, el);
    if (desc) wrap.append(hint);
    return { name, el, kind, node: wrap };
  }

  async function getJson(path) {
    const res = await api(path);
    if (res.status === 401) return null;
    try { return await res.json(); } catch (_) { return null; }
  }

  async function loadServer() {
    const [spec, formats, ready] = await Promise.all([
      getJson('/openapi.json'), getJson('/formats'), getJson('/ready'),
    ]);
    if (!spec) return;
    const form = resolve(spec, ((spec.components || {}).schemas || {}).CreateJobForm);
    const props = form.properties || {};
    const required = form.required || [];
    // Output formats: exactly the server's enum.
    const outputs = (resolve(spec, props.output_format).enum || []).filter((v) => typeof v === 'string');
    if (outputs.length) {
      const sel = $('output_format');
      const was = sel.value;
      sel.replaceChildren(...outputs.map((v) => new Option(LABELS[v] ? `${LABELS[v]} (${v})` : v, v)));
      if (outputs.includes(was)) sel.value = was;
    }
    // OCR providers: the enum, named and with readiness from `formats` / `ready`.
    const ocrSchema = resolve(spec, props.ocr_provider);
    $('ocr').hidden = !props.use_ocr;
    const providers = (ocrSchema.enum || []).filter((v) => typeof v === 'string' && v !== '');
    const named = new Map(((formats || {}).ocr_providers || []).map((p) => [p.id, p]));
    const readyMap = (((ready || {}).services || {}).ocr) || {};
    const sel = $('ocr_provider');
    sel.replaceChildren();
    let firstReady = null;
    const notes = [];
    for (const id of providers) {
      const p = named.get(id);
      const built = !formats || named.has(id);
      const ok = built && (p ? p.ready : readyMap[id] !== false) && readyMap[id] !== false;
      const name = p && p.name ? `${p.name} (${id})` : id;
      const opt = new Option(`${name}: ${ok ? 'ready' : built ? 'not available' : 'not in this build'}`, id);
      opt.disabled = !ok;
      sel.append(opt);
      if (ok && !firstReady) firstReady = id;
      if (!ok) notes.push(`${id} ${built ? 'is not available on this server' : 'is not built into this server'}`);
    }
    if (firstReady) sel.value = firstReady;
    $('ocr-status').textContent = providers.length === 0 ? 'This server offers no OCR provider.'
      : !firstReady ? 'No OCR provider is ready on this server.'
        : notes.length ? `Not offered now: ${notes.join('; ')}.` : 'All providers are ready.';
    // Every other field the server lists: typed from its schema.
    for (const f of extraFields) f.node.remove();
    extraFields = [];
    for (const [name, raw] of Object.entries(props)) {
      if (KNOWN.has(name)) continue;
      const f = buildField(name, resolve(spec, raw), required.includes(name));
      extraFields.push(f);
      const home = name === 'webhook_url' ? 'more-fields' : /ocr/.test(name) ? 'ocr-extra' : 'extra';
      $(home).append(f.node);
    }
    syncOcr();
  }

  function syncOcr() {
    const on = $('use_ocr').checked;
    $('ocr_provider').disabled = !on || $('ocr_provider').options.length === 0;
    for (const f of extraFields) if ($('ocr-extra').contains(f.node)) f.el.disabled = !on;
  }

  // ---------- files ----------
  const fileInput = $('file');
  function showChosen() {
    const list = $('chosen');
    list.replaceChildren(...[...fileInput.files].map((f) => {
      const li = document.createElement('li');
      li.textContent = `${f.name} (${size(f.size)})`;
      return li;
    }));
  }
  function size(n) {
    return n < 1024 ? `${n} bytes` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`;
  }
  const drop = $('drop');
  for (const ev of ['dragenter', 'dragover']) {
    drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.add('over'); });
  }
  for (const ev of ['dragleave', 'drop']) drop.addEventListener(ev, () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    if (e.dataTransfer && e.dataTransfer.files.length) {
      fileInput.files = e.dataTransfer.files;
      showChosen();
    }
  });
  fileInput.addEventListener('change', showChosen);

  // ---------- jobs ----------
  const jobs = new Map(); // id -> {job, card, bytes, type}

  function card(fileName) {
    const li = document.createElement('li');
    li.className = 'job';
    const head = document.createElement('div');
    head.className = 'head';
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = fileName;
    name.id = `job-${Math.random().toString(36).slice(2)}`;
    const state = document.createElement('span');
    state.className = 'state';
    state.setAttribute('role', 'status');
    state.textContent = 'Uploading…';
    const fmt = document.createElement('span');
    fmt.className = 'fmt';
    head.append(name, fmt, state);
    const bar = document.createElement('progress');
    bar.max = 100;
    bar.setAttribute('aria-labelledby', name.id);
    const error = document.createElement('p');
    error.className = 'error';
    error.hidden = true;
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    li.append(head, bar, error, buttons);
    li.dataset.history = '';
    $('jobs').prepend(li);
    $('no-jobs').hidden = true;
    return { li, state, bar, error, buttons };
  }

  function fail(c, text) {
    c.li.classList.add('failed');
    c.li.dataset.status = 'failed';
    c.state.textContent = 'Failed';
    c.bar.hidden = true;
    c.error.hidden = false;
    c.error.textContent = text;
  }

  function update(entry, job) {
    entry.job = job;
    const c = entry.card;
    c.li.querySelector('.fmt').textContent = `to ${LABELS[job.output_format] || job.output_format}`;
    const p = Math.max(0, Math.min(100, Number(job.progress) || 0));
    const hist = c.li.dataset.history ? c.li.dataset.history.split(',') : [];
    if (hist[hist.length - 1] !== String(p)) { hist.push(String(p)); c.li.dataset.history = hist.join(','); }
    c.bar.value = p;
    c.li.dataset.status = job.status;
    c.li.className = `job ${job.status}`;
    const words = { pending: 'Waiting', processing: 'Converting', completed: 'Done', failed: 'Failed' };
    c.state.textContent = job.status === 'processing' ? `Converting: ${p} %` : (words[job.status] || job.status);
    if (job.status === 'failed') fail(c, job.error_message || 'The conversion failed.');
    if (job.status === 'completed' && !c.buttons.childElementCount) {
      c.bar.hidden = true;
      const show = button('Show result', () => showResult(entry));
      const dl = button('Download', () => download(entry));
      show.setAttribute('aria-describedby', c.li.querySelector('.name').id);
      dl.setAttribute('aria-describedby', c.li.querySelector('.name').id);
      c.buttons.append(show, dl);
    }
  }

  function button(text, onClick) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = text;
    b.addEventListener('click', onClick);
    return b;
  }

  // Live progress: the events stream (fetch, so the key header goes along) when the server
  // has one, else polling.
  async function track(entry) {
    const id = entry.job.id;
    let last = null;
    try { last = await events(id, (job) => update(entry, job)); } catch (_) { last = null; }
    if (last && FINAL.has(last.status)) { entry.card.li.dataset.transport = 'events'; return; }
    entry.card.li.dataset.transport = 'polling';
    let wait = 300;
    for (;;) {
      let res;
      try { res = await api(`/jobs/${encodeURIComponent(id)}`); } catch (_) { res = null; }
      if (res && res.ok) {
        const job = await res.json();
        update(entry, job);
        if (FINAL.has(job.status)) return;
      } else if (res && res.status === 404) {
        fail(entry.card, 'The job no longer exists on the server.');
        return;
      } else if (res && res.status === 401) {
        fail(entry.card, 'The server refused the API key.');
        return;
      }
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(1500, wait + 100);
    }
  }

  async function events(id, onJob) {
    const res = await api(`/jobs/${encodeURIComponent(id)}/events`, { headers: { Accept: 'text/event-stream' } });
    const type = res.headers.get('content-type') || '';
    if (res.status !== 200 || !type.startsWith('text/event-stream') || !res.body) {
      if (res.body) res.body.cancel().catch(() => {});
      return null;
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    let last = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      for (;;) {
        const m = /\r\n\r\n|\n\n|\r\r/.exec(buf);
        if (!m) break;
        const block = buf.slice(0, m.index);
        buf = buf.slice(m.index + m[0].length);
        let event = 'message';
        const data = [];
        for (const line of block.split(/\r\n|\n|\r/)) {
          if (!line || line.startsWith(':')) continue;
          const c = line.indexOf(':');
          const field = c < 0 ? line : line.slice(0, c);
          let v = c < 0 ? '' : line.slice(c + 1);
          if (v.startsWith(' ')) v = v.slice(1);
          if (field === 'event') event = v;
          else if (field === 'data') data.push(v);
        }
        if ((event === 'job' || event === 'message') && data.length) {
          try { last = JSON.parse(data.join('\n')); onJob(last); } catch (_) { /* not a job */ }
        }
      }
    }
    return last;
  }

  $('convert').addEventListener('submit', async (e) => {
    e.preventDefault();
    const files = [...fileInput.files];
    if (!files.length) { say('Choose at least one file first.', true); fileInput.focus(); return; }
    say(files.length === 1 ? 'Uploading 1 file…' : `Uploading ${files.length} files…`);
    const submit = $('submit');
    submit.disabled = true;
    let ok = 0;
    try {
      for (const file of files) {
        const c = card(file.name);
        const body = new FormData();
        body.append('file', file, file.name);
        body.append('output_format', $('output_format').value);
        if (!$('ocr').hidden && $('use_ocr').checked) {
          body.append('use_ocr', 'true');
          if ($('ocr_provider').value) body.append('ocr_provider', $('ocr_provider').value);
        }
        for (const f of extraFields) {
          if (f.el.disabled) continue;
          if (f.kind === 'bool') { if (f.el.checked) body.append(f.name, 'true'); } else if (f.el.value.trim() !== '') body.append(f.name, f.el.value.trim());
        }
        let res;
        try { res = await api('/jobs', { method: 'POST', body }); } catch (err) {
          fail(c, `The upload did not reach the server: ${err.message}`);
          continue;
        }
        if (res.status !== 202 && res.status !== 200 && res.status !== 201) {
          fail(c, await detailOf(res));
          continue;
        }
        const job = await res.json();
        const entry = { job, card: c, bytes: null, contentType: '', name: '' };
        c.li.dataset.jobId = job.id;
        jobs.set(job.id, entry);
        update(entry, job);
        track(entry);
        ok++;
      }
    } finally {
      submit.disabled = false;
    }
    say(ok === files.length ? `${ok} job${ok === 1 ? '' : 's'} started.`
      : `${ok} of ${files.length} jobs started; see the errors below.`, ok !== files.length);
  });

  // ---------- results ----------
  async function fetchResult(entry) {
    if (entry.bytes) return true;
    const res = await api(`/jobs/${encodeURIComponent(entry.job.id)}/result`);
    if (!res.ok) { fail(entry.card, await detailOf(res)); return false; }
    entry.bytes = new Uint8Array(await res.arrayBuffer());
    entry.contentType = res.headers.get('content-type') || '';
    entry.name = fileNameOf(res.headers.get('content-disposition')) || `${entry.job.file_name}.${entry.job.output_format}`;
    return true;
  }

  function fileNameOf(disposition) {
    if (!disposition) return '';
    const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
    if (star) { try { return decodeURIComponent(star[1]); } catch (_) { /* fall through */ } }
    const q = /filename="([^"]*)"/i.exec(disposition);
    return q ? q[1] : '';
  }

  async function download(entry) {
    if (!(await fetchResult(entry))) return;
    const url = URL.createObjectURL(new Blob([entry.bytes], { type: entry.contentType || 'application/octet-stream' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = entry.name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  let current = null; // {entry, parts: [{label, source, render()}]}

  async function showResult(entry) {
    if (!(await fetchResult(entry))) return;
    const text = new TextDecoder().decode(entry.bytes);
    const isJson = /json/.test(entry.contentType) || entry.job.output_format !== 'md';
    let parts;
    if (isJson) {
      let value;
      try { value = JSON.parse(text); } catch (err) {
        parts = [{ label: 'Whole document', source: text, render: (el) => { el.textContent = `Not valid JSON: ${err.message}`; } }];
      }
      if (!parts) parts = jsonParts(value, text);
    } else {
      parts = markdownParts(text, entry.job.file_name);
    }
    current = { entry, parts };
    $('result').hidden = false;
    $('result-name').textContent = entry.name;
    const sel = $('part');
    sel.replaceChildren(...parts.map((p, i) => new Option(p.label, String(i))));
    $('parts').hidden = parts.length < 2;
    showPart(0);
    $('result').dataset.jobId = entry.job.id;
    $('result-h').scrollIntoView({ block: 'start' });
    $('rendered').focus({ preventScroll: true });
  }

  function showPart(i) {
    const parts = current.parts;
    i = Math.max(0, Math.min(parts.length - 1, i));
    $('part').value = String(i);
    $('prev').disabled = i === 0;
    $('next').disabled = i === parts.length - 1;
    const part = parts[i];
    const src = part.source;
    const shown = src.length > SOURCE_LIMIT ? src.slice(0, SOURCE_LIMIT) : src;
    const [short, count] = shortenData(shown);
    $('source').textContent = short;
    const notes = [];
    if (src.length > SOURCE_LIMIT) notes.push(`The source shows the first ${size(SOURCE_LIMIT)} of ${size(src.length)}; download the result for all of it.`);
    if (count) notes.push(`Embedded image data is shortened in the source view (${count} image${count === 1 ? '' : 's'}); the download is complete.`);
    $('result-note').textContent = notes.join(' ');
    const target = $('rendered');
    target.replaceChildren();
    part.render(target);
  }
  $('part').addEventListener('change', () => showPart(Number($('part').value)));
  $('prev').addEventListener('click', () => showPart(Number($('part').value) - 1));
  $('next').addEventListener('click', () => showPart(Number($('part').value) + 1));
  $('download-result').addEventListener('click', () => current && download(current.entry));

  function shortenData(text) {
    let count = 0;
    const out = text.replace(/(data:[a-z0-9.+/-]+;base64,)([A-Za-z0-9+/=]{120,})/gi, (_, head, data) => {
      count++;
      return `${head}${data.slice(0, 40)}…(${data.length} characters)`;
    });
    return [out, count];
  }

  // Markdown: split at the page and slide markers quire writes, or at sheets (`## name`) of a
  // spreadsheet; each part is rendered on its own.
  function markdownParts(text, fileName) {
    const marks = [...text.matchAll(/^<!-- (Page|Slide) (\d+) -->[ \t]*$/gm)];
    let cuts = [];
    if (marks.length >= 2) {
      cuts = marks.map((m) => ({ at: m.index, label: `${m[1]} ${m[2]}` }));
    } else if (/\.(xlsx|xlsm|xls|xlsb|ods|csv|tsv)$/i.test(fileName || '')) {
      cuts = [...text.matchAll(/^## (.+)$/gm)].map((m) => ({ at: m.index, label: `Sheet: ${m[1]}` }));
      if (cuts.length < 2) cuts = [];
    }
    const whole = { label: 'Whole document', source: text, render: (el) => renderMarkdown(el, text) };
    if (!cuts.length) return [whole];
    const parts = [];
    if (cuts[0].at > 0 && text.slice(0, cuts[0].at).trim()) {
      const head = text.slice(0, cuts[0].at);
      parts.push({ label: 'Start', source: head, render: (el) => renderMarkdown(el, head) });
    }
    cuts.forEach((c, i) => {
      const body = text.slice(c.at, i + 1 < cuts.length ? cuts[i + 1].at : text.length);
      parts.push({ label: `${c.label} (${i + 1} of ${cuts.length})`, source: body, render: (el) => renderMarkdown(el, body) });
    });
    // A short document is also offered whole.
    if (text.length < 1024 * 1024) parts.push(whole);
    return parts;
  }

  const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  function safeHref(href) {
    const h = String(href || '').trim();
    if (/^#/.test(h)) return h;
    try {
      const u = new URL(h);
      return ['http:', 'https:', 'mailto:'].includes(u.protocol) ? u.href : '';
    } catch (_) { return ''; }
  }
  let markedReady = false;
  function setupMarked() {
    if (markedReady || !window.marked) return;
    markedReady = true;
    window.marked.use({
      gfm: true,
      renderer: {
        // Raw HTML in a result is shown as text, never interpreted; quire's own page and
        // slide markers are drawn as a small label.
        html({ text }) {
          const m = /^\s*<!-- (Page|Slide) (\d+) -->\s*$/.exec(text);
          if (m) return `<p class="part-mark">${m[1]} ${m[2]}</p>\n`;
          if (/^\s*<!--[\s\S]*-->\s*$/.test(text)) return '';
          return escapeHtml(text);
        },
        link({ href, title, tokens }) {
          const inner = this.parser.parseInline(tokens);
          const safe = safeHref(href);
          if (!safe) return inner;
          return `<a href="${escapeHtml(safe)}"${title ? ` title="${escapeHtml(title)}"` : ''} rel="noopener noreferrer nofollow" target="_blank">${inner}</a>`;
        },
        image({ href, title, text }) {
          const t = title ? ` title="${escapeHtml(title)}"` : '';
          if (/^data:image\/(png|jpe?g|gif|bmp|webp);base64,/i.test(href)) {
            return `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}"${t}>`;
          }
          // Referenced images are fetched with the key (below) and shown from a blob.
          return `<img data-ref="${escapeHtml(href)}" alt="${escapeHtml(text)}"${t}>`;
        },
      },
    });
  }
  function renderMarkdown(el, text) {
    setupMarked();
    if (!window.marked) { el.textContent = 'The Markdown renderer did not load.'; return; }
    const src = text.length > RENDER_LIMIT ? text.slice(0, RENDER_LIMIT) : text;
    el.innerHTML = window.marked.parse(src);
    if (src.length < text.length) {
      const p = document.createElement('p');
      p.className = 'hint';
      p.textContent = `Only the first ${size(RENDER_LIMIT)} are rendered; choose a part above or download the result.`;
      el.append(p);
    }
    for (const img of el.querySelectorAll('img[data-ref]')) loadImage(img);
  }
  async function loadImage(img) {
    const job = current && current.entry.job;
    let url;
    try { url = new URL(img.dataset.ref, new URL(`${API}/jobs/${job.id}/`, location.href)); } catch (_) { url = null; }
    if (url && url.origin === location.origin) {
      try {
        const res = await fetch(url, { headers: withKey() });
        if (res.ok) { img.src = URL.createObjectURL(await res.blob()); return; }
      } catch (_) { /* shown as text below */ }
    }
    const span = document.createElement('span');
    span.className = 'noimg';
    span.textContent = `[image: ${img.alt || img.dataset.ref}]`;
    img.replaceWith(span);
  }

  // JSON: a collapsible tree; a document's pages, slides, sheets or sections are parts.
  function jsonParts(value, text) {
    const whole = { label: 'Whole document', source: text, render: (el) => el.append(tree(value, null, 2)) };
    const content = value && typeof value === 'object' ? value.content : null;
    const kinds = [['pages', 'Page', 'page_number'], ['slides', 'Slide', 'slide_number'], ['sheets', 'Sheet', 'sheet_name'], ['sections', 'Section', 'heading']];
    for (const [key, word, name] of kinds) {
      const list = content && Array.isArray(content[key]) ? content[key] : null;
      if (!list || list.length < 2) continue;
      const parts = [whole];
      list.forEach((item, i) => {
        const tag = item && item[name] !== undefined && item[name] !== '' ? String(item[name]).slice(0, 60) : String(i + 1);
        parts.push({
          label: `${word} ${word === 'Page' || word === 'Slide' ? tag : `${i + 1}: ${tag}`} (${i + 1} of ${list.length})`,
          source: JSON.stringify(item, null, 2),
          render: (el) => el.append(tree(item, `${key}[${i}]`, 3)),
        });
      });
      return parts;
    }
    return [whole];
  }

  function tree(value, key, openDepth) {
    const root = document.createElement('div');
    root.className = 'tree';
    root.append(node(value, key, openDepth));
    return root;
  }
  function keySpan(key) {
    const k = document.createElement('span');
    k.className = 'k';
    k.textContent = `${typeof key === 'number' ? key : JSON.stringify(key)}: `;
    return k;
  }
  function node(value, key, openDepth) {
    if (value !== null && typeof value === 'object') {
      const isArray = Array.isArray(value);
      const entries = isArray ? value.map((v, i) => [i, v]) : Object.entries(value);
      const d = document.createElement('details');
      const s = document.createElement('summary');
      if (key !== null && key !== undefined) s.append(keySpan(key));
      const c = document.createElement('span');
      c.className = 'c';
      c.textContent = isArray ? `[${entries.length} item${entries.length === 1 ? '' : 's'}]` : `{${entries.length} field${entries.length === 1 ? '' : 's'}}`;
      s.append(c);
      d.append(s);
      let shown = 0;
      const more = () => {
        const end = Math.min(entries.length, shown + TREE_CHUNK);
        const frag = document.createDocumentFragment();
        for (; shown < end; shown++) frag.append(node(entries[shown][1], entries[shown][0], openDepth - 1));
        d.append(frag);
        if (shown < entries.length) {
          const b = button(`Show ${Math.min(TREE_CHUNK, entries.length - shown)} more of ${entries.length - shown}`, () => { b.remove(); more(); });
          b.className = 'leaf';
          d.append(b);
        }
      };
      d.addEventListener('toggle', () => { if (d.open && shown === 0) more(); });
      if (openDepth > 0) d.open = true;
      return d;
    }
    const leaf = document.createElement('div');
    leaf.className = 'leaf';
    if (key !== null && key !== undefined) leaf.append(keySpan(key));
    const v = document.createElement('span');
    let text = JSON.stringify(value);
    if (typeof value === 'string' && text.length > 300) text = `${text.slice(0, 240)}…" (${value.length} characters)`;
    v.className = typeof value === 'string' ? 's' : 'n';
    v.textContent = text;
    leaf.append(v);
    return leaf;
  }

  // ---------- start ----------
  const keyInput = $('api_key');
  keyInput.value = apiKey;
  keyInput.addEventListener('change', () => {
    apiKey = keyInput.value.trim();
    try { if (apiKey) localStorage.setItem(KEY_STORE, apiKey); else localStorage.removeItem(KEY_STORE); } catch (_) { /* storage off */ }
    say(apiKey ? 'API key saved in this browser.' : 'API key removed from this browser.');
    loadServer().catch(() => {});
  });
  $('use_ocr').addEventListener('change', syncOcr);
  loadServer().catch((err) => say(`Cannot read the server's options: ${err.message}`, true));
})();
