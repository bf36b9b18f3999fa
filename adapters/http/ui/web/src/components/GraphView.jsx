// The picture of the graph on screen (picture/picture.js) with its tools:
// zoom, fit, centre on the selection, the local graph's depth, and toggles
// for the tiers and for references (files, URLs). Preact renders the tools;
// the picture changes its own elements, so a live change does not re-render
// thousands of them.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Picture } from '../picture/picture.js';
import { mergePatches } from '../graphstore.js';

const TOGGLES = [
  { key: 'active', label: 'Active' },
  { key: 'archived', label: 'Archived' },
  { key: 'orphaned', label: 'Orphaned' },
  { key: 'ref', label: 'Files and references' },
];

export function GraphView({ store, version, log, selected, focusKey, hits, label, resetKey, phone, onSelect, pictureRef }) {
  const host = useRef(null);
  const pic = useRef(null);
  const [hidden, setHidden] = useState(() => new Set());
  const [depth, setDepth] = useState(1);
  const [local, setLocal] = useState(true);
  const [state, setState] = useState({ k: 1, pinned: 0, near: 0 });
  const onSelectRef = useRef(onSelect);
  onSelectRef.current = onSelect;

  // What the picture shows: which graph, which read of it (the log's
  // generation), at which version of the store.
  const drawn = useRef({ key: null, store: null, gen: -1, version: -1 });
  useEffect(() => {
    const p = new Picture(host.current, {
      onSelect: (id) => onSelectRef.current(id),
      // Only a change re-renders the tools.
      onState: (s) => setState((o) => (Object.keys(s).every((k) => o[k] === s[k]) ? o : { ...o, ...s })),
    });
    pic.current = p;
    // The page hands each change here as it applies it, so the picture does
    // not wait for a render: from and to are the store's versions before
    // and after. A change the picture is not in step for waits for the
    // effect below, which catches up from the log.
    if (pictureRef) {
      pictureRef.current = {
        picture: p,
        applyNow(st, from, to, patch) {
          const d = drawn.current;
          if (d.store !== st || d.version !== from || d.gen !== log.current.gen) return;
          p.applyPatch(st, patch);
          drawn.current = { ...d, version: to };
        },
      };
    }
    return () => { p.destroy(); pic.current = null; if (pictureRef) pictureRef.current = null; };
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  // The patches logged since the last drawing are applied in place; another
  // graph or a new read draws the graph whole, keeping the positions of
  // what stays.
  useEffect(() => {
    const p = pic.current;
    if (!p || !store?.loaded) return;
    const d = drawn.current;
    const L = log.current;
    const fresh = d.key !== resetKey;
    if (fresh || d.store !== store || d.gen !== L.gen) {
      p.setGraph(store, { resetView: fresh });
    } else if (d.version !== store.version) {
      const mine = L.entries.filter((e) => e.from >= d.version);
      if (mine.length && mine[0].from === d.version) p.applyPatch(store, mergePatches(mine.map((e) => e.patch)));
      else p.setGraph(store);
    }
    L.entries = [];
    drawn.current = { key: resetKey, store, gen: L.gen, version: store.version };
    p.svg.setAttribute('aria-label', `${label}: ${store.nodes.size} nodes and ${store.edges.size} edges`);
    p.setSelected(selected);
  }, [store, version, resetKey]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => { pic.current?.setSelected(selected); }, [selected]);
  // A selection from the list, a search or a link: bring it into view.
  useEffect(() => { if (focusKey) pic.current?.setSelected(selected, { focus: true }); }, [focusKey]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => { pic.current?.setHits(hits); }, [hits]);
  useEffect(() => { pic.current?.setHidden(hidden); }, [hidden]);
  useEffect(() => { pic.current?.setDepth(depth); }, [depth]);
  useEffect(() => { pic.current?.setLocal(local || phone, phone); }, [local, phone]);
  useEffect(() => { pic.current?.setTouch(!!phone); }, [phone]);

  const toggle = (key) => setHidden((h) => {
    const n = new Set(h);
    if (n.has(key)) n.delete(key); else n.add(key);
    return n;
  });

  return (
    <div class="graph">
      <div class="graph-tools" role="toolbar" aria-label="Picture">
        <div class="tool-group" role="group" aria-label="Zoom">
          <button type="button" onClick={() => pic.current?.zoomBy(1.4)} aria-label="Zoom in">+</button>
          <button type="button" onClick={() => pic.current?.zoomBy(1 / 1.4)} aria-label="Zoom out">−</button>
          <button type="button" onClick={() => pic.current?.reset()}>Fit</button>
          <button type="button" onClick={() => pic.current?.centre()} disabled={!selected}>Centre</button>
          {/* Agents' new nodes that landed outside the view: one click brings them in. */}
          {state.fresh > 0 && (
            <button type="button" class="fresh" data-testid="fresh" onClick={() => pic.current?.showFresh()}>{state.fresh} new — show</button>
          )}
        </div>
        <div class="tool-group" role="group" aria-label="Local graph">
          <label class="check">
            <input type="checkbox" checked={local || phone} disabled={phone} onChange={(e) => setLocal(e.currentTarget.checked)} />
            Local graph
          </label>
          <label class="depth">
            <span class="visually-hidden">Depth of the local graph</span>
            <select value={depth} onChange={(e) => setDepth(Number(e.currentTarget.value))} aria-label="Depth of the local graph">
              <option value={1}>1 step</option>
              <option value={2}>2 steps</option>
            </select>
          </label>
          {/* Always there, so the picture does not move when it appears. */}
          <button type="button" class={state.pinned ? '' : 'invisible'} onClick={() => pic.current?.unpinAll()} disabled={!state.pinned}>Unpin {state.pinned}</button>
        </div>
        <fieldset class="tool-group toggles">
          <legend class="visually-hidden">Show</legend>
          {TOGGLES.map((t) => (
            <label class={`check toggle-${t.key}`} key={t.key}>
              <input type="checkbox" checked={!hidden.has(t.key)} onChange={() => toggle(t.key)} />
              {t.label}
            </label>
          ))}
        </fieldset>
      </div>
      <div class="pic-host" ref={host} />
      <ul class="legend" aria-label="Legend">
        <li><svg viewBox="-10 -10 20 20" aria-hidden="true"><circle class="v v-active" r="7" /></svg>active</li>
        <li><svg viewBox="-10 -10 20 20" aria-hidden="true"><circle class="v v-archived" r="7" /></svg>archived</li>
        <li><svg viewBox="-10 -10 20 20" aria-hidden="true"><path class="v v-orphaned" d="M0,-8 L8,0 L0,8 L-8,0 Z" /></svg>orphaned</li>
        <li><svg viewBox="-10 -10 20 20" aria-hidden="true"><rect class="v v-ref" x="-5" y="-5" width="10" height="10" /></svg>file or reference</li>
        <li class="legend-hint">Drag a node to pin it; double-click to free it.</li>
      </ul>
    </div>
  );
}
