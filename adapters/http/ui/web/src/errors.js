// Errors in plain language. The server's answers name the field and the
// limit ({detail, kind, field}, docs/api.md#rest-api); a person needs to
// know what happened and what to do, so the page says it in those terms and
// offers the next step (see their version, open the node, wait for kg).

const FIELDS = {
  id: 'Id', gist: 'Gist', notes: 'Notes', touches: 'Touches', from: 'From', to: 'To', rel: 'Relation',
  query: 'Search', q: 'Search', body: 'The document', level: 'Graph', project_path: 'Project',
};

/** One item of a list field: "notes[1]" is note 2. */
const ONE = { notes: 'Note', touches: 'Touch' };

/** The field of a detail such as "notes[2]: 2001 chars, limit 2000", for a person. */
function fieldLabel(field) {
  const m = /^([a-z_]+)(?:\[(\d+)\])?(?:\.(\w+))?/.exec(field ?? '');
  if (!m) return field;
  const base = FIELDS[m[1]] ?? m[1];
  if (m[2] !== undefined && ONE[m[1]]) return `${ONE[m[1]]} ${Number(m[2]) + 1}`;
  if (m[2] !== undefined) return `${base}, item ${Number(m[2]) + 1}${m[3] ? ` (${m[3]})` : ''}`;
  return base;
}

// A refusal of the secret scanner (docs/design/trust.md#refusals-and-redactions):
// "notes[1]: looks like an AWS access key (chars 12–31); store a reference …".
const SECRET = /: looks like .+ \(chars \d+–\d+\)/;

/**
 * "Not saved: note 2 looks like an AWS access key (chars 12–31); store a
 * reference …" — each finding's field named for a person, never the secret
 * (the server never sends it).
 */
function secretText(field, detail) {
  const rest = detail.startsWith(`${field}: `) ? detail.slice(field.length + 2) : detail;
  const more = rest.replace(/; ([a-z_]+(?:\[\d+\])?(?:\.[a-z_]+(?:\[\d+\])?)*): looks like/g,
    (_, f) => `; ${fieldLabel(f).toLowerCase()} looks like`);
  return `Not saved: ${fieldLabel(field).toLowerCase()} ${more}`;
}

/**
 * What to tell a person about err, a failed call of api.js.
 * @param {Error} err
 * @param {{what?: string, id?: string, creating?: boolean}} ctx what was being done
 * @returns {{kind: 'offline'|'changed'|'exists'|'gone'|'invalid'|'secret'|'unavailable'|'other', text: string}}
 */
export function explain(err, ctx = {}) {
  const id = ctx.id ? `“${ctx.id}”` : 'It';
  if (err?.offline) return { kind: 'offline', text: 'kg is not answering — retrying…' };
  if (err?.kind === 'conflict' && err.field === 'expected_version') {
    if (ctx.creating) return { kind: 'exists', text: `A node ${id} already exists — open it, or choose another id.` };
    return { kind: 'changed', text: `${id} changed since you opened it — see their version, or overwrite it with yours.` };
  }
  if (err?.kind === 'not_found') {
    return { kind: 'gone', text: `${id} is not in this graph any more: someone deleted it. Close this and pick another.` };
  }
  if (err?.kind === 'unavailable') {
    return { kind: 'unavailable', text: `kg could not save this, and changed nothing: ${detailOf(err)} Try again in a moment.` };
  }
  if (err?.status === 413) return { kind: 'invalid', text: `Too large for kg: ${detailOf(err)}` };
  if (err?.kind === 'invalid' || err?.status === 400) {
    const d = detailOf(err);
    const f = err.field;
    if (f && SECRET.test(d)) return { kind: 'secret', text: secretText(f, d) };
    // "gist: 1001 chars, limit 1000" → "Gist: 1001 chars, limit 1000."
    const rest = f && d.startsWith(`${f}: `) ? d.slice(f.length + 2) : d;
    return { kind: 'invalid', text: f ? `${fieldLabel(f)}: ${rest}` : rest };
  }
  return { kind: 'other', text: `${ctx.what ? `${ctx.what} failed: ` : ''}${detailOf(err)}` };
}

function detailOf(err) {
  const d = String(err?.message ?? err ?? 'unknown error').trim();
  return /[.!?]$/.test(d) ? d : `${d}.`;
}

/**
 * Runs fn, and while kg is not answering tries again, after 1, 2, 4 … up to
 * 8 s, until it answers or stop() says to give up. onWait(attempt) is
 * called before each new try, so the caller can say it is retrying.
 */
export async function retrying(fn, { onWait = () => {}, stop = () => false, delays = [1000, 2000, 4000, 8000] } = {}) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!e?.offline || stop()) throw e;
      onWait(attempt + 1);
      await new Promise((r) => setTimeout(r, delays[Math.min(attempt, delays.length - 1)]));
      if (stop()) throw e;
    }
  }
}
