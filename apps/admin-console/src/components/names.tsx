import { createContext, type ComponentChildren } from 'preact';
import { useContext, useMemo } from 'preact/hooks';
import { shortId } from '../format.js';
import type { Facets, Person, TokenRef } from '../types.js';

interface Directory {
  people: Map<string, Person>;
  tokens: Map<string, TokenRef>;
}

const DirectoryContext = createContext<Directory>({ people: new Map(), tokens: new Map() });

/** Names for the ids in the history (people and tokens), from the history's own facets. */
export function DirectoryProvider(props: {
  facets: Facets | undefined;
  children: ComponentChildren;
}) {
  const value = useMemo<Directory>(
    () => ({
      people: new Map((props.facets?.people ?? []).map((p) => [p.user_id, p])),
      tokens: new Map((props.facets?.tokens ?? []).map((t) => [t.token_id, t])),
    }),
    [props.facets],
  );
  return <DirectoryContext.Provider value={value}>{props.children}</DirectoryContext.Provider>;
}

export function useDirectory(): Directory {
  return useContext(DirectoryContext);
}

/** A person by name (e-mail on hover), given what is known; the id only as a last resort. */
export function PersonName(props: {
  id: string | null;
  name?: string | null;
  email?: string | null;
}) {
  const { people } = useDirectory();
  if (props.id === null && !props.name) return <span class="muted">—</span>;
  const known = props.id === null ? undefined : people.get(props.id);
  const name = props.name ?? known?.name;
  const email = props.email ?? known?.email;
  if (name) return <span title={email ?? undefined}>{name}</span>;
  if (email) return <span>{email}</span>;
  return <code title={props.id ?? undefined}>{shortId(props.id ?? '')}</code>;
}

export function TokenName(props: {
  id: string | null;
  name?: string | null;
  kind?: string | null;
}) {
  const { tokens } = useDirectory();
  if (props.id === null) return <span class="muted">—</span>;
  const known = tokens.get(props.id);
  const name = props.name ?? known?.name;
  const kind = props.kind ?? known?.kind;
  if (name)
    return (
      <span title={props.id}>
        {name}
        {kind ? <span class="muted"> ({kind === 'oauth' ? 'OAuth' : 'personal'})</span> : null}
      </span>
    );
  return <code title={props.id}>{shortId(props.id)}</code>;
}
