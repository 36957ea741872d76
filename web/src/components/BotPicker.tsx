// Bot kind + difficulty selects for one seat.
import { bots } from "../lib/api";
import type { GameCatalog } from "../lib/catalog";

export interface CatalogBotKind {
  kind: string;
  description: string;
  difficulties: string[];
  defaultDifficulty: string;
}

/** The bot kinds a title's tables may seat: the catalogue's list, else BotService.ListBots. */
export async function botKindsFor(rulesId: string, cat: GameCatalog | null): Promise<CatalogBotKind[]> {
  if (cat && cat.raw.botKinds.length) return cat.raw.botKinds;
  const res = await bots.listBots({ rulesId });
  return res.bots.map((b) => ({ kind: b.kind, description: b.description, difficulties: b.difficulties, defaultDifficulty: b.difficulties[Math.min(1, b.difficulties.length - 1)] ?? "" }));
}

export interface BotChoice {
  kind: string;
  difficulty: string;
}

export function BotPicker(props: { kinds: CatalogBotKind[]; value: BotChoice; onChange: (v: BotChoice) => void; label: string; testid: string }) {
  const kind = props.kinds.find((k) => k.kind === props.value.kind) ?? props.kinds[0];
  return (
    <span class="bot-picker">
      <select aria-label={`${props.label}: bot kind`} data-testid={`${props.testid}-kind`} value={props.value.kind} onChange={(e) => {
        const k = props.kinds.find((x) => x.kind === (e.target as HTMLSelectElement).value);
        props.onChange({ kind: k?.kind ?? "", difficulty: k?.defaultDifficulty || k?.difficulties[0] || "" });
      }}>
        {props.kinds.map((k) => (
          <option value={k.kind} title={k.description}>{k.kind}</option>
        ))}
      </select>
      <select aria-label={`${props.label}: difficulty`} data-testid={`${props.testid}-difficulty`} value={props.value.difficulty} onChange={(e) => props.onChange({ ...props.value, difficulty: (e.target as HTMLSelectElement).value })}>
        {(kind?.difficulties ?? []).map((d) => (
          <option value={d}>{d}</option>
        ))}
      </select>
    </span>
  );
}

export function defaultBot(kinds: CatalogBotKind[]): BotChoice {
  const k = kinds.find((x) => x.kind === "heuristic") ?? kinds[0];
  return { kind: k?.kind ?? "heuristic", difficulty: k?.defaultDifficulty || k?.difficulties[0] || "" };
}
