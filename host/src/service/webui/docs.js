// The /docs page: every operation of the OpenAPI document with its description (Markdown
// rendered), typed fields (enums as selects, booleans as checkboxes, required fields first),
// each response's schema and an example built from it, and a "Send" that calls the API
// (with the web page's API key when one is stored).
'use strict';
(() => {
  const SPEC_URL = document.querySelector('meta[name="quire-openapi"]').content;
  let apiKey = '';
  try { apiKey = localStorage.getItem('quire.apiKey') || ''; } catch (_) { /* storage off */ }
  const el = (tag, attrs = {}, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  };
  let spec = null;
  const resolve = (schema) => {
    for (let i = 0; schema && schema.$ref && i < 8; i++) schema = spec.components.schemas[schema.$ref.split('/').pop()];
    return schema || {};
  };
  const refName = (schema) => (schema && schema.$ref ? schema.$ref.split('/').pop() : '');
  const types = (s) => [].concat(s.type || []);

  // Markdown in descriptions: paragraphs, `code`, **bold**, *emphasis*, [links](http...).
  function md(text) {
    const frag = document.createDocumentFragment();
    for (const para of String(text || '').split(/\n\s*\n/)) {
      if (!para.trim()) continue;
      const p = el('p', { class: 'desc' });
      const re = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*|\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g;
      let last = 0;
      for (let m = re.exec(para); m; m = re.exec(para)) {
        p.append(para.slice(last, m.index));
        if (m[1]) p.append(el('code', {}, m[1]));
        else if (m[2]) p.append(el('strong', {}, m[2]));
        else if (m[3]) p.append(el('em', {}, m[3]));
        else p.append(el('a', { href: m[5], rel: 'noopener noreferrer' }, m[4]));
        last = re.lastIndex;
      }
      p.append(para.slice(last));
      frag.append(p);
    }
    return frag;
  }

  function typeText(schema) {
    const s = resolve(schema);
    const name = refName(schema);
    const values = (s.enum || []).filter((v) => v !== '');
    if (values.length && values.length <= 12) return `${name ? `${name}: ` : ''}${values.map((v) => JSON.stringify(v)).join(' | ')}`;
    if (s.type === 'array') return `array of ${typeText(s.items || {})}`;
    if (name) return name;
    return types(s).join(' | ') + (s.format ? ` (${s.format})` : '') || 'any';
  }

  // An example value built from a schema (its own example first).
  function example(schema, depth = 0) {
    const s = resolve(schema);
    if (s.example !== undefined) return s.example;
    if (s.examples && s.examples.length) return s.examples[0];
    if (s.enum && s.enum.length) return s.enum.find((v) => v !== '') ?? s.enum[0];
    if (depth > 6) return null;
    if (s.oneOf || s.anyOf) return example((s.oneOf || s.anyOf).find((x) => resolve(x).type !== 'null') || {}, depth + 1);
    if (s.allOf) return Object.assign({}, ...s.allOf.map((x) => example(x, depth + 1)));
    const t = types(s).filter((x) => x !== 'null')[0] || (s.properties ? 'object' : '');
    if (t === 'object') {
      const out = {};
      for (const [k, v] of Object.entries(s.properties || {})) out[k] = example(v, depth + 1);
      return out;
    }
    if (t === 'array') return [example(s.items || {}, depth + 1)];
    if (t === 'integer') return s.minimum ?? 0;
    if (t === 'number') return 0.0;
    if (t === 'boolean') return true;
    if (t === 'string') {
      if (s.format === 'date-time') return '2026-01-01T12:00:00Z';
      if (s.format === 'uri') return 'https://example.com/hook';
      if (s.format === 'uuid') return '3f0c2a1e-9b7d-4c5e-8f21-6a4b2c1d0e9f';
      return 'string';
    }
    return null;
  }

  // A schema as a list of its fields: name, type, required, description.
  function schemaView(schema) {
    const s = resolve(schema);
    const props = s.properties || (s.type === 'array' ? resolve(s.items || {}).properties : null);
    if (!props) return el('p', { class: 'schema' }, typeText(schema));
    const req = (s.type === 'array' ? resolve(s.items || {}).required : s.required) || [];
    const table = el('table', { class: 'resp schema' },
      el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Field'), el('th', { scope: 'col' }, 'Type'), el('th', { scope: 'col' }, 'Description'))));
    const body = el('tbody');
    for (const [k, v] of Object.entries(props)) {
      const desc = el('td');
      desc.append(md(resolve(v).description || v.description || ''));
      body.append(el('tr', {}, el('td', {}, k, req.includes(k) ? el('span', { class: 'req' }, ' required') : null), el('td', {}, typeText(v)), desc));
    }
    table.append(body);
    return el('div', {}, s.type === 'array' ? el('p', { class: 'muted' }, 'An array of:') : null, table);
  }

  function field(name, schema, required, where) {
    const s = resolve(schema);
    const id = `${where}-${name}-${Math.random().toString(36).slice(2, 7)}`;
    const wrap = el('div', { class: 'field' });
    const values = (s.enum || []).filter((v) => typeof v === 'string' && v !== '');
    let input;
    let kind = 'text';
    if (s.format === 'binary') {
      kind = 'file';
      input = el('input', { type: 'file', id, name });
    } else if (types(s).includes('boolean')) {
      kind = 'bool';
      input = el('input', { type: 'checkbox', id, name });
    } else if (values.length) {
      kind = 'select';
      input = el('select', { id, name });
      if (!required) input.append(new Option('(not sent)', ''));
      for (const v of values) input.append(new Option(v, v));
    } else {
      input = el('input', { type: /password/.test(name) ? 'password' : s.format === 'uri' ? 'url' : 'text', id, name });
    }
    if (required) input.required = true;
    const label = el('label', { for: id }, name);
    const head = kind === 'bool' ? el('div', { class: 'check' }, input, label) : el('div', {}, label);
    head.append(el('span', { class: 'type' }, kind === 'file' ? 'file' : typeText(schema)), required ? el('span', { class: 'req' }, ' required') : '');
    wrap.append(head);
    if (s.description || schema.description) wrap.append(md(s.description || schema.description));
    if (kind !== 'bool') wrap.append(input);
    return { name, where, kind, input, node: wrap };
  }

  async function send(method, path, fields, out) {
    let url = path;
    const body = new FormData();
    let hasBody = false;
    for (const f of fields) {
      const i = f.input;
      if (f.where === 'path') url = url.replace(`{${f.name}}`, encodeURIComponent(i.value));
      else if (f.kind === 'file') { if (i.files[0]) { body.append(f.name, i.files[0]); hasBody = true; } }
      else if (f.kind === 'bool') { if (i.checked) { body.append(f.name, 'true'); hasBody = true; } }
      else if (i.value !== '') { body.append(f.name, i.value); hasBody = true; }
    }
    out.textContent = 'Sending…';
    try {
      const headers = new Headers();
      if (apiKey) headers.set('X-API-Key', apiKey);
      const res = await fetch(url, { method, headers, body: method === 'POST' && hasBody ? body : undefined });
      const type = res.headers.get('content-type') || '';
      let text = await res.text();
      if (type.includes('json')) { try { text = JSON.stringify(JSON.parse(text), null, 2); } catch (_) { /* as is */ } }
      const loc = res.headers.get('location');
      out.textContent = `HTTP ${res.status}${loc ? `\nLocation: ${loc}` : ''}\n\n${text}`;
    } catch (e) { out.textContent = String(e); }
  }

  function operation(path, method, op) {
    const fields = [];
    for (const p of op.parameters || []) fields.push(field(p.name, { ...(p.schema || {}), description: p.description }, !!p.required, p.in));
    const form = op.requestBody && op.requestBody.content && op.requestBody.content['multipart/form-data'];
    if (form) {
      const s = resolve(form.schema);
      const req = s.required || [];
      // Required fields first, in the order the schema lists them.
      const names = Object.keys(s.properties || {}).sort((a, b) => (req.includes(b) ? 1 : 0) - (req.includes(a) ? 1 : 0));
      for (const n of names) fields.push(field(n, s.properties[n], req.includes(n), 'form'));
    }
    const out = el('pre', { 'aria-live': 'polite' });
    const f = el('form');
    for (const x of fields) f.append(x.node);
    f.append(el('button', { type: 'submit' }, 'Send'));
    f.addEventListener('submit', (ev) => { ev.preventDefault(); send(method.toUpperCase(), path, fields, out); });
    const responses = el('div');
    for (const [code, r] of Object.entries(op.responses || {})) {
      const d = el('details', {}, el('summary', {}, el('strong', {}, code), ' ', r.description || ''));
      for (const [type, c] of Object.entries(r.content || {})) {
        d.append(el('p', { class: 'muted' }, type));
        if (c.schema) {
          d.append(schemaView(c.schema));
          const ex = c.example !== undefined ? c.example : example(c.schema);
          d.append(el('p', { class: 'muted' }, c.example !== undefined ? 'Example' : 'Example (built from the schema)'),
            el('pre', {}, typeof ex === 'string' ? ex : JSON.stringify(ex, null, 2)));
        }
      }
      for (const [h, hv] of Object.entries(r.headers || {})) d.append(el('p', {}, 'Header ', el('code', {}, h), ' ', hv.description || ''));
      responses.append(d);
    }
    const summary = el('summary', {}, el('span', { class: `m ${method}` }, method.toUpperCase()), ' ', path, ' ',
      el('span', { class: 'muted' }, op.summary || ''));
    const body = el('div');
    if (op.description) body.append(md(op.description));
    if (fields.length) body.append(el('h3', {}, 'Request'));
    body.append(f, out, el('h3', {}, 'Responses'), responses);
    return el('details', { class: 'op' }, summary, body);
  }

  function loadSpec() {
    fetch(SPEC_URL, { headers: apiKey ? { 'X-API-Key': apiKey } : {} }).then((r) => {
      if (r.status === 401) throw new Error('this server requires an API key: enter it above');
      return r.json();
    }).then((s) => {
      spec = s;
      const desc = document.getElementById('desc');
      desc.replaceChildren(md(`${spec.info.description || ''} (version ${spec.info.version})`));
      const ops = document.getElementById('ops');
      ops.replaceChildren();
      for (const [path, item] of Object.entries(spec.paths)) {
        for (const [method, op] of Object.entries(item)) {
          if (['get', 'post', 'put', 'delete', 'patch'].includes(method)) ops.append(operation(path, method, op));
        }
      }
    }).catch((e) => { document.getElementById('desc').textContent = `Cannot load the API description: ${e.message || e}`; });
  }
  document.getElementById('keyform').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const input = document.getElementById('apikey');
    apiKey = input.value.trim();
    try { if (apiKey) localStorage.setItem('quire.apiKey', apiKey); else localStorage.removeItem('quire.apiKey'); } catch (_) { /* storage off */ }
    input.value = '';
    loadSpec();
  });
  loadSpec();
})();
