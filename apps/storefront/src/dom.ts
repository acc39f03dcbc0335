/** A few lines instead of a framework: elements from a tag, attributes and children; text is always text. */

type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `el`. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A labelled form field with its error line below it (`aria-describedby`), as the forms show errors. */
export function field(
  label: string,
  name: string,
  options: { type?: string; value?: string; required?: boolean; autocomplete?: string; hint?: string; inputmode?: string } = {},
): HTMLElement {
  const id = `f-${name}-${Math.random().toString(36).slice(2, 8)}`;
  const input = h('input', {
    id,
    name,
    type: options.type ?? 'text',
    value: options.value ?? '',
    required: options.required ?? false,
    autocomplete: options.autocomplete ?? null,
    inputmode: options.inputmode ?? null,
    'aria-describedby': `${id}-error${options.hint ? ` ${id}-hint` : ''}`,
  });
  return h(
    'div',
    { class: 'field', 'data-field': name },
    h('label', { for: id }, label, options.required ? null : h('span', { class: 'optional' }, ' (optional)')),
    options.hint ? h('p', { class: 'hint', id: `${id}-hint` }, options.hint) : null,
    input,
    h('p', { class: 'field-error', id: `${id}-error`, role: 'alert' }),
  );
}

/** Shows `errors` (`{field: message}`) on the form's fields; answers the messages no field took. */
export function showFieldErrors(form: HTMLElement, errors: Record<string, string>): Record<string, string> {
  for (const box of form.querySelectorAll<HTMLElement>('.field')) {
    box.classList.remove('invalid');
    box.querySelector('input')?.removeAttribute('aria-invalid');
    const line = box.querySelector('.field-error');
    if (line) line.textContent = '';
  }
  const rest: Record<string, string> = {};
  let first: HTMLInputElement | null = null;
  for (const [name, message] of Object.entries(errors)) {
    const key = name.replace(/^address\./, '');
    const box = form.querySelector<HTMLElement>(`.field[data-field="${CSS.escape(key)}"]`);
    if (!box) {
      rest[name] = message;
      continue;
    }
    box.classList.add('invalid');
    const input = box.querySelector('input');
    input?.setAttribute('aria-invalid', 'true');
    first ??= input;
    const line = box.querySelector('.field-error');
    if (line) line.textContent = sentence(message);
  }
  first?.focus();
  return rest;
}

export const sentence = (message: string) => message.charAt(0).toUpperCase() + message.slice(1) + (/[.!?]$/.test(message) ? '' : '.');

export function formValues(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [k, v] of new FormData(form).entries()) values[k] = String(v).trim();
  return values;
}
