import { isDefaultRegistryMatch, repositoryToPull, urlsMatch } from './url-match.js';

describe('urlsMatch (upstream URLsMatchStr)', () => {
  it.each([
    // globs: one DNS label each, anywhere in the host
    ['*.kubernetes.io', 'prefix.kubernetes.io', true],
    ['prefix.*.io', 'prefix.kubernetes.io', true],
    ['prefix.kubernetes.*', 'prefix.kubernetes.io', true],
    ['*-good.kubernetes.io', 'prefix-good.kubernetes.io', true],
    ['*.*.kubernetes.io', 'a.b.kubernetes.io', true],
    ['registry.[a-c].io', 'registry.b.io', true],
    ['registry.[^a-c].io', 'registry.d.io', false], // as upstream: '^' is not a valid host character
    ['k8s.?o', 'k8s.io', false], // as upstream: '?' starts the URL's query, so the host is "k8s."
    ['[a-c].registry.io', 'b.registry.io', false], // as upstream: a leading '[' is an IPv6 literal
    ['*.kubernetes.io', 'kubernetes.io', false], // not as many labels
    ['*.kubernetes.io', 'a.b.kubernetes.io', false], // '*' never crosses a '.'
    ['*.*.kubernetes.io', 'prefix.kubernetes.io', false],
    ['*kubernetes.io', 'a.kubernetes.io', false],
    ['*-good.kubernetes.io', 'prefix-bad.kubernetes.io', false],
    ['registry.[c-a].io', 'registry.b.io', false], // an empty range matches nothing
    ['registry.[].io', 'registry.b.io', false], // a bad pattern matches nothing
    // paths: the glob's path is a string prefix of the image's
    ['prefix.kubernetes.io/foo', 'prefix.kubernetes.io/foo/bar', true],
    ['*.kubernetes.io/foo', 'prefix.kubernetes.io/foo/bar', true],
    ['prefix.kubernetes.io/foo', 'prefix.kubernetes.io/foobar', true],
    ['prefix.kubernetes.io/foo/bar', 'prefix.kubernetes.io/foo', false],
    ['prefix.kubernetes.io/foo', 'prefix.kubernetes.io/bar/foo', false],
    // ports: must be equal, and no wildcard
    ['prefix.kubernetes.io:8080', 'prefix.kubernetes.io:8080/foo', true],
    ['*.kubernetes.io:8080/foo', 'prefix.kubernetes.io:8080/foo/bar', true],
    ['prefix.kubernetes.io:8080', 'prefix.kubernetes.io/foo', false],
    ['prefix.kubernetes.io', 'prefix.kubernetes.io:8080/foo', false],
    ['prefix.kubernetes.io:*', 'prefix.kubernetes.io:8080/foo', false],
    ['localhost:5000', 'localhost:5000/app', true],
    // hosts compare as written
    ['Registry.io', 'registry.io/app', false],
  ])('%s vs %s → %s', (glob, target, expected) => {
    expect(urlsMatch(glob, target)).toBe(expected);
  });
});

describe('isDefaultRegistryMatch', () => {
  it.each([
    ['foo', true],
    ['foo/bar', true],
    ['docker.io/foo/bar', true],
    ['index.docker.io/foo/bar', true],
    ['localhost/foo', true], // no '.' or ':': a Docker Hub user name, by the look of it
    ['private-registry:5000/foo', false],
    ['registry.io/foo', false],
    ['/foo', false],
  ])('%s → %s', (image, expected) => {
    expect(isDefaultRegistryMatch(image)).toBe(expected);
  });
});

describe('repositoryToPull (upstream parsers.ParseImageName)', () => {
  it.each([
    ['nginx', 'docker.io/library/nginx'],
    ['nginx:1.25', 'docker.io/library/nginx'],
    ['team/app@sha256:ff', 'docker.io/team/app'],
    ['index.docker.io/nginx', 'docker.io/library/nginx'],
    ['docker.io/team/app:v1', 'docker.io/team/app'],
    ['localhost/app', 'localhost/app'],
    ['registry.io:5000/team/app:v1', 'registry.io:5000/team/app'],
    ['docker.io/library/nginx', 'docker.io/library/nginx'],
  ])('%s → %s', (image, expected) => {
    expect(repositoryToPull(image)).toBe(expected);
  });
});
