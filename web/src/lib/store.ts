// A minimal observable value and a Preact hook that re-renders on change.
import { useEffect, useState } from "preact/hooks";

export class Store<T> {
  private listeners = new Set<(v: T) => void>();
  constructor(private current: T) {}
  get value(): T {
    return this.current;
  }
  set(next: T): void {
    this.current = next;
    for (const l of [...this.listeners]) l(next);
  }
  subscribe(listener: (v: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function useStore<T>(store: Store<T>): T {
  const [, force] = useState(0);
  useEffect(() => store.subscribe(() => force((n) => n + 1)), [store]);
  return store.value;
}
