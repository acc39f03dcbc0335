import { api } from './api';
import type { Envelope } from './types';

/**
 * The visitor's session as the last answer with a selection told it: selection, country, language,
 * methods, login. Screens read it; every answer that carries a selection replaces it and redraws the header.
 */
let current: Envelope | null = null;
const listeners = new Set<(e: Envelope) => void>();

export const session = () => current;

export function onSession(listener: (e: Envelope) => void): void {
  listeners.add(listener);
}

/** Keeps an answer that has a selection (most selection and login answers do); answers it. */
export function keep<T>(answer: T): T {
  const e = answer as unknown as Partial<Envelope>;
  if (e && e.selection && e.location) {
    current = { ...(current ?? {}), ...e } as Envelope;
    // Logout's answer has no loggedIn: the login is gone, not unknown.
    if (!('loggedIn' in e)) delete current.loggedIn;
    for (const listener of listeners) listener(current);
  }
  return answer;
}

export async function loadSession(): Promise<Envelope> {
  return keep(await api<Envelope>('GET', 'selection'));
}

export const loggedIn = () => Boolean(current?.loggedIn);
