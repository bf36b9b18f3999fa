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

/** The error of a failed write, naming the field when the server did. */
export function FormError({ error }) {
  if (!error) return null;
  return <p class="error" role="alert" id="form-error">{error.message}</p>;
}
