// An invite link (#/join/<table>?code=...): join the table, then wait in the lobby or play.
import { useEffect, useState } from "preact/hooks";
import { lobby, errorText } from "../lib/api";
import { openAssignment } from "../lib/assign";
import { go } from "../lib/router";

export function JoinPage(props: { tableId: string; code: string }) {
  const [error, setError] = useState("");
  useEffect(() => {
    lobby.joinTable({ tableId: props.tableId, inviteCode: props.code }).then(
      (res) => {
        if (res.assignment) openAssignment(res.assignment);
        else {
          localStorage.setItem("warroom.table", JSON.stringify({ tableId: props.tableId, inviteCode: props.code }));
          go(`/lobby?game=${res.table?.rulesId || "ncw"}`);
        }
      },
      (e) => setError(errorText(e)),
    );
  }, [props.tableId, props.code]);
  return <main class="page">{error ? <p class="error" role="alert" data-testid="join-error">{error}</p> : <p class="muted">Joining the table…</p>}</main>;
}
