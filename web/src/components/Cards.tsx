// Cards and objectives with their full catalogue texts; face-down cards as backs.
import type { GameCatalog } from "../lib/catalog";
import type { CardGroup } from "../games/model";

export function CardTile(props: { cat: GameCatalog; id: number; kind: "card" | "objective"; testid?: string }) {
  if (props.kind === "objective") {
    const o = props.cat.objectives.get(props.id);
    return (
      <article class="game-card objective" data-testid={props.testid ?? "objective"} data-objective-id={props.id} tabIndex={0}>
        <header>
          <span class="card-name">{o?.name || `Objective ${props.id}`}</span>
          {o && <span class="card-ops">{o.vp} VP</span>}
        </header>
        <p class="card-text">{o?.text ?? "(unknown objective)"}</p>
        {o?.owner && <footer>{o.owner}</footer>}
      </article>
    );
  }
  const c = props.cat.cards.get(props.id);
  const faces = c?.faces.length ? c.faces : c ? [{ name: c.name, text: c.text }] : [];
  return (
    <article class="game-card" data-testid={props.testid ?? "card"} data-card-id={props.id} tabIndex={0}>
      <header>
        <span class="card-name">{c?.name ?? `Card ${props.id}`}</span>
        {c?.hasOps && <span class="card-ops" title="Operation points">{c.ops !== c.opsLow ? `${c.opsLow}/${c.ops}` : c.ops} OP</span>}
        {!!c?.cost && <span class="card-ops">cost {c.cost}</span>}
      </header>
      {faces.map((f, i) => (
        <p class="card-text">
          {i > 0 && <strong>{f.name}: </strong>}
          {f.text}
        </p>
      ))}
      <footer>
        {[c?.owner, c?.deck, ...(c?.classes ?? [])].filter(Boolean).join(" · ")}
        {c?.provenance?.provenance === "reconstructed" && <span class="muted" title={c.provenance.source}> · reconstructed</span>}
      </footer>
    </article>
  );
}

export function CardBack(props: { label?: string }) {
  return (
    <div class="card-back" data-testid="card-back" aria-label={props.label ?? "face-down card"} role="img">
      <span aria-hidden="true">★</span>
    </div>
  );
}

export function CardGroupView(props: { cat: GameCatalog; group: CardGroup }) {
  const g = props.group;
  return (
    <section class="card-group" data-testid={g.testid} aria-label={g.title}>
      <h3>
        {g.title} <span class="muted">({g.ids.length})</span>
      </h3>
      {g.ids.length === 0 ? (
        <p class="muted">none</p>
      ) : (
        <div class="card-row">
          {g.ids.map((id) => (
            <CardTile cat={props.cat} id={id} kind={g.kind} testid={g.testid === "hand" ? "hand-card" : g.kind === "objective" ? "objective" : "card"} />
          ))}
        </div>
      )}
    </section>
  );
}
