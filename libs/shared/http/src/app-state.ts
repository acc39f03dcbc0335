import type Koa from 'koa';

/** Per-app lifecycle shared by createHttpApp (readiness) and serve (shutdown). */
interface AppState {
  shuttingDown: boolean;
}

const states = new WeakMap<Koa, AppState>();

export function appState(app: Koa): AppState {
  let state = states.get(app);
  if (!state) {
    state = { shuttingDown: false };
    states.set(app, state);
  }
  return state;
}

/** Marks the app not-ready: /readyz answers 503 and responses close their connection. */
export function markShuttingDown(app: Koa): void {
  appState(app).shuttingDown = true;
}

export const isShuttingDown = (app: Koa): boolean => appState(app).shuttingDown;
