/** A route the app does not know (a mistyped or outdated link): said plainly, with a way on. */
import { href } from '../router';

export function NotFoundScreen({ path }: { path: string }) {
  return (
    <section className="screen not-found" aria-labelledby="not-found-title">
      <h1 id="not-found-title">Page not found</h1>
      <p>
        There is no screen at <code>#{path}</code>. The link may be mistyped or come from another version of Outpost.
      </p>
      <p>
        <a href={href('/probes')}>Go to the probes</a> or choose a screen on the left.
      </p>
    </section>
  );
}
