import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, isAbort, type Query } from './api.js';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * GETs `path` (with `query`) and again whenever either changes; a newer load aborts an older
 * one, so a slow answer never overwrites a newer one. The previous data stays on screen while
 * reloading (no flicker on live refresh).
 */
export function useApi<T>(path: string | null, query: Query = {}): Loaded<T> {
  const key = path === null ? null : `${path}?${JSON.stringify(query)}`;
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({
    loading: path !== null,
  });
  const [tick, setTick] = useState(0);
  const queryRef = useRef(query);
  queryRef.current = query;

  useEffect(() => {
    if (path === null) return undefined;
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    api<T>(path, { query: queryRef.current, signal: controller.signal }).then(
      (data) => setState({ data, loading: false }),
      (err: unknown) => {
        if (isAbort(err)) return;
        const error = err instanceof ApiError ? err : new ApiError(0, 'CLIENT_ERROR', String(err));
        setState((s) => ({ data: s.data, error, loading: false }));
      },
    );
    return () => controller.abort();
    // `key` stands for path + query.
  }, [key, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Calls `fn` every `ms` while `enabled` and the page is visible. */
export function useInterval(fn: () => void, ms: number, enabled: boolean): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!enabled) return undefined;
    const id = setInterval(() => {
      if (document.visibilityState === 'visible') saved.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms, enabled]);
}
