// The force-directed picture of one graph. Tiers differ by shape and line,
// not only by colour: active nodes are filled circles, archived ones hollow
// circles with a dashed ring, orphaned ones small hollow diamonds with a
// dotted line, and edge ends that are not nodes (files, URLs, other levels)
// grey squares. The picture is for the eye; the node list beside it is the
// keyboard's way to the same nodes.
import { useMemo, useRef, useState, useEffect } from 'preact/hooks';
import { layout } from '../layout.js';

const MARKER = 'kg-arrow';

function Shape({ v, selected }) {
  const cls = `v v-${v.kind === 'ref' ? 'ref' : v.tier}${selected ? ' v-selected' : ''}`;
  if (v.kind === 'ref') return <rect class={cls} x={-5} y={-5} width={10} height={10} />;
  if (v.tier === 'orphaned') return <path class={cls} d="M0,-8 L8,0 L0,8 L-8,0 Z" />;
  return <circle class={cls} r={v.tier === 'active' ? 8 : 7} />;
}

export function GraphView({ graph, selected, onSelect, label, resetKey }) {
  const previous = useRef(new Map());
  const svg = useRef(null);
  const [view, setView] = useState({ k: 1, x: 0, y: 0 });

  // Vertices: the graph's nodes plus the edge ends that name no node.
  const { vertices, links } = useMemo(() => {
    const ids = new Set(graph.nodes.map((n) => n.id));
    const vs = graph.nodes.map((n) => ({ id: n.id, kind: 'node', tier: n.tier ?? 'active' }));
    const refs = new Set();
    for (const e of graph.edges) {
      for (const end of [e.from, e.to]) {
        if (!ids.has(end) && !refs.has(end)) { refs.add(end); vs.push({ id: end, kind: 'ref', tier: 'ref' }); }
      }
    }
    return { vertices: vs, links: graph.edges.map((e) => ({ source: e.from, target: e.to, edge: e })) };
  }, [graph]);

  const positions = useMemo(() => {
    const p = layout(vertices, links, previous.current);
    previous.current = p;
    return p;
  }, [vertices, links]);

  // Fit the drawing in the box when the graph changes.
  const box = useMemo(() => {
    let x0 = Infinity; let y0 = Infinity; let x1 = -Infinity; let y1 = -Infinity;
    for (const p of positions.values()) {
      x0 = Math.min(x0, p.x); y0 = Math.min(y0, p.y); x1 = Math.max(x1, p.x); y1 = Math.max(y1, p.y);
    }
    if (!Number.isFinite(x0)) return { x: -260, y: -180, w: 520, h: 360 };
    // Room for the labels, which run to the right of their nodes.
    x0 -= 30; x1 += 150; y0 -= 30; y1 += 30;
    // A small graph is not blown up: the box is at least 520 × 360 units.
    const w = Math.max(520, x1 - x0);
    const h = Math.max(360, y1 - y0);
    return { x: (x0 + x1 - w) / 2, y: (y0 + y1 - h) / 2, w, h };
  }, [positions]);

  // Zoom and pan stay while agents write; another graph starts fitted.
  useEffect(() => setView({ k: 1, x: 0, y: 0 }), [resetKey]);

  const tier = new Map(vertices.map((v) => [v.id, v.tier]));
  const showLabels = vertices.length <= 150;
  const neighbours = new Set();
  for (const l of links) {
    if (l.source === selected) neighbours.add(l.target);
    if (l.target === selected) neighbours.add(l.source);
  }

  // Pan by dragging the background, zoom with the wheel or the buttons.
  const drag = useRef(null);
  const scale = () => {
    const r = svg.current?.getBoundingClientRect();
    return r && r.width ? Math.max(box.w / r.width, box.h / r.height) / view.k : 1;
  };
  const onPointerDown = (e) => {
    if (e.target.closest?.('.vertex')) return;
    drag.current = { x: e.clientX, y: e.clientY, view, s: scale() };
    e.currentTarget.setPointerCapture?.(e.pointerId);
  };
  const onPointerMove = (e) => {
    const d = drag.current;
    if (!d) return;
    setView({ ...d.view, x: d.view.x - (e.clientX - d.x) * d.s, y: d.view.y - (e.clientY - d.y) * d.s });
  };
  const onPointerUp = () => { drag.current = null; };
  const zoom = (f) => setView((v) => ({ ...v, k: Math.min(8, Math.max(0.25, v.k * f)) }));
  const onWheel = (e) => { e.preventDefault(); zoom(e.deltaY < 0 ? 1.15 : 1 / 1.15); };

  const w = box.w / view.k;
  const h = box.h / view.k;
  const viewBox = `${box.x + (box.w - w) / 2 + view.x} ${box.y + (box.h - h) / 2 + view.y} ${w} ${h}`;

  return (
    <div class="graph">
      <div class="graph-tools" role="group" aria-label="Zoom">
        <button type="button" onClick={() => zoom(1.25)} aria-label="Zoom in">+</button>
        <button type="button" onClick={() => zoom(0.8)} aria-label="Zoom out">−</button>
        <button type="button" onClick={() => setView({ k: 1, x: 0, y: 0 })}>Fit</button>
      </div>
      <svg ref={svg} viewBox={viewBox} preserveAspectRatio="xMidYMid meet" role="img"
        aria-label={`${label}: ${graph.nodes.length} nodes and ${graph.edges.length} edges`}
        onPointerDown={onPointerDown} onPointerMove={onPointerMove} onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp} onWheel={onWheel} data-nodes={graph.nodes.length}>
        <defs>
          <marker id={MARKER} viewBox="0 0 10 10" refX="18" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" class="arrow" />
          </marker>
        </defs>
        <g class="edges">
          {links.map((l) => {
            const a = positions.get(l.source); const b = positions.get(l.target);
            if (!a || !b) return null;
            const lit = l.source === selected || l.target === selected;
            const quiet = l.edge.shown === false || (tier.get(l.source) !== 'active' && tier.get(l.target) !== 'active');
            return (
              <line key={`${l.source}\u0000${l.target}\u0000${l.edge.rel}`} x1={a.x} y1={a.y} x2={b.x} y2={b.y}
                class={`e${lit ? ' e-lit' : ''}${quiet ? ' e-quiet' : ''}`} marker-end={`url(#${MARKER})`} />
            );
          })}
        </g>
        <g class="vertices">
          {vertices.map((v) => {
            const p = positions.get(v.id);
            if (!p) return null;
            const isSel = v.id === selected;
            const labelled = showLabels || isSel || neighbours.has(v.id) || v.tier === 'active';
            return (
              <g key={`${v.kind}:${v.id}`} class={`vertex${v.kind === 'node' ? ' pickable' : ''}`}
                transform={`translate(${p.x.toFixed(1)},${p.y.toFixed(1)})`} data-id={v.id} data-tier={v.tier}
                onClick={v.kind === 'node' ? () => onSelect(v.id) : undefined}>
                <title>{v.kind === 'ref' ? `${v.id} (not a node of this graph)` : `${v.id} (${v.tier})`}</title>
                <Shape v={v} selected={isSel} />
                {labelled && <text x={11} y={4} class={`label${isSel ? ' label-selected' : ''}`}>{v.id.length > 32 ? `${v.id.slice(0, 31)}…` : v.id}</text>}
              </g>
            );
          })}
        </g>
      </svg>
      <ul class="legend" aria-label="Legend">
        <li><svg viewBox="-10 -10 20 20" aria-hidden="true"><circle class="v v-active" r="7" /></svg>active</li>
        <li><svg viewBox="-10 -10 20 20" aria-hidden="true"><circle class="v v-archived" r="7" /></svg>archived</li>
        <li><svg viewBox="-10 -10 20 20" aria-hidden="true"><path class="v v-orphaned" d="M0,-8 L8,0 L0,8 L-8,0 Z" /></svg>orphaned</li>
        <li><svg viewBox="-10 -10 20 20" aria-hidden="true"><rect class="v v-ref" x="-5" y="-5" width="10" height="10" /></svg>file or other reference</li>
      </ul>
    </div>
  );
}
