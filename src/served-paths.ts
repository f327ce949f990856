/**
 * Where each route is served: the serving rule for the `/api` prefix (docs/decisions.md, "Paths").
 */
import type { Route } from './route-types.ts';

/**
 * Each route at its documented path and at its twin with or without `/api`, unless the spec
 * documents the twin path itself, for any method (the second CarePlan description: its paths keep
 * their own rules, so `POST /CarePlan/_search` is not a token-optional twin of the first
 * description's). Static paths come before `:id` paths so `/X/_search` is never read as an id.
 */
export function servedPaths(routes: readonly Route[]): { route: Route; path: string }[] {
  const documented = new Set(routes.map((route) => route.path));
  const served = routes.flatMap((route) => {
    const twin = route.path.startsWith('/api/') ? route.path.slice('/api'.length) : `/api${route.path}`;
    const paths = documented.has(twin) ? [route.path] : [route.path, twin];
    return paths.map((path) => ({ route, path }));
  });
  return served.sort((a, b) => Number(a.path.includes(':')) - Number(b.path.includes(':')));
}
