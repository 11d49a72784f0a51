/**
 * A link from an object's page to its history (issue 11): the local History screen filtered to
 * the entries naming that object (`object=<type>:<pk>`, shared/app/history.ts).
 */
import { href } from '../router';
import { typeLabel } from '../screens/historyFormat';

export function HistoryLink({ type, pk }: { type: string; pk: number }) {
  return (
    <>
      {' · '}
      <a className="history-link" href={href('/history', { object: `${type}:${pk}` })} title={`Every change of this ${typeLabel(type)}, newest first`}>
        history
      </a>
    </>
  );
}
