// A modal dialog on the native <dialog> element: it keeps focus inside,
// closes on Escape, and gives focus back to what opened it.
import { useEffect, useRef } from 'preact/hooks';

export function Dialog({ title, onClose, children, describedBy }) {
  const ref = useRef(null);
  useEffect(() => {
    const d = ref.current;
    const opener = document.activeElement;
    d.showModal();
    const first = d.querySelector('[autofocus]') ?? d.querySelector('input:not([readonly]), textarea, select, button');
    first?.focus();
    return () => { if (opener && opener.isConnected) opener.focus(); };
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="dialog-title" aria-describedby={describedBy}
      onCancel={(e) => { e.preventDefault(); onClose(); }}>
      <h2 id="dialog-title">{title}</h2>
      {children}
    </dialog>
  );
}

/**
 * What went wrong with a write, in plain language (errors.js), with the
 * next steps as buttons; children are those buttons.
 */
export function Problem({ problem, children }) {
  if (!problem) return null;
  return (
    <div class={`problem problem-${problem.kind}`} role="alert" id="form-error" data-kind={problem.kind}>
      <p>{problem.text}</p>
      {children && <div class="problem-actions">{children}</div>}
    </div>
  );
}
