package java

import (
	"cmp"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/fixloop/fixloop/internal/filecache"
	"github.com/fixloop/fixloop/runner"
)

// Maven dependencies from the local repository.
//
// A Maven project's classes import its dependencies, which javac cannot
// find without them on the class path. fixloop does not run Maven (it may
// not be installed, and it would download): it reads pom.xml, its parents
// and the poms of its dependencies already in the local repository
// (~/.m2/repository, where any earlier Maven build left them) and puts the
// jars found there on the class path. Versions come from the pom's
// properties, its parents' and dependencyManagement (imported BOMs
// included); transitive dependencies of scope compile and runtime are
// followed, nearest first, as Maven does. Artifacts missing from the local
// repository, and version ranges, are left out.

// maxMavenArtifacts bounds the dependencies followed for one project.
const maxMavenArtifacts = 2000

// pomFile is what fixloop reads of a pom.xml.
type pomFile struct {
	Parent struct {
		GroupID      string  `xml:"groupId"`
		ArtifactID   string  `xml:"artifactId"`
		Version      string  `xml:"version"`
		RelativePath *string `xml:"relativePath"`
	} `xml:"parent"`
	GroupID              string      `xml:"groupId"`
	ArtifactID           string      `xml:"artifactId"`
	Version              string      `xml:"version"`
	Properties           pomProps    `xml:"properties"`
	DependencyManagement []pomDep    `xml:"dependencyManagement>dependencies>dependency"`
	Dependencies         []pomDep    `xml:"dependencies>dependency"`
	Modules              []string    `xml:"modules>module"`
	Build                pomBuildDir `xml:"build"`
}

type pomBuildDir struct {
	SourceDirectory string `xml:"sourceDirectory"`
}

type pomDep struct {
	GroupID    string `xml:"groupId"`
	ArtifactID string `xml:"artifactId"`
	Version    string `xml:"version"`
	Scope      string `xml:"scope"`
	Type       string `xml:"type"`
	Classifier string `xml:"classifier"`
	Optional   string `xml:"optional"`
	Exclusions []struct {
		GroupID    string `xml:"groupId"`
		ArtifactID string `xml:"artifactId"`
	} `xml:"exclusions>exclusion"`
}

// key identifies the dependency for management and inheritance.
func (d pomDep) key() string { return d.GroupID + ":" + d.ArtifactID }

// artifactKey identifies the file it names: a tests jar is another file
// than the main jar of the same artifact.
func (d pomDep) artifactKey() string {
	return d.key() + ":" + d.Classifier + ":" + cmp.Or(d.Type, "jar")
}

// excludes reports whether d's exclusions name the artifact g:a ("*"
// matches any).
func (d pomDep) excludes(g, a string) bool {
	for _, x := range d.Exclusions {
		if (x.GroupID == "*" || x.GroupID == g) && (x.ArtifactID == "*" || x.ArtifactID == a) {
			return true
		}
	}
	return false
}

// pomProps reads <properties> into a map.
type pomProps map[string]string

func (p *pomProps) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	*p = pomProps{}
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			var v string
			if err := d.DecodeElement(&v, &t); err != nil {
				return err
			}
			(*p)[t.Name.Local] = strings.TrimSpace(v)
		case xml.EndElement:
			return nil
		}
	}
}

// effectivePom is a pom with its parents applied: every property (the
// project.* ones included) and the managed versions.
type effectivePom struct {
	dir     string // the pom's directory, for a project pom; "" in the repository
	props   map[string]string
	managed map[string]pomDep // groupId:artifactId -> the managed dependency
	deps    []pomDep          // interpolated
	// rawManaged and rawDeps are the pom's and its parents' entries as
	// written, the nearer pom's winning: a child inherits them and fills
	// them in with its own properties, as Maven does.
	rawManaged []pomDep
	rawDeps    []pomDep
	modules    []string
	sources    string // the main source directory, absolute, for a project pom
}

// mavenResolver reads poms from a project tree and the local repository.
type mavenResolver struct {
	repo string // the local repository
	poms map[string]*effectivePom
	// files are the project's pom files read (not the repository's), as
	// they were before they were read: the class path is resolved again
	// when one changes.
	files filecache.Files
}

// readPom parses the pom at path.
func readPom(path string) (*pomFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var p pomFile
	if err := xml.NewDecoder(io.LimitReader(f, 16<<20)).Decode(&p); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return &p, nil
}

// repoPath returns the path of an artifact's file in the local repository.
func (r *mavenResolver) repoPath(group, artifact, version, classifier, ext string) string {
	name := artifact + "-" + version
	if classifier != "" {
		name += "-" + classifier
	}
	return filepath.Join(r.repo, filepath.FromSlash(strings.ReplaceAll(group, ".", "/")), artifact, version, name+"."+ext)
}

// load returns the effective pom at path (a project pom when inProject).
func (r *mavenResolver) load(path string, inProject bool, depth int) (*effectivePom, error) {
	if e, ok := r.poms[path]; ok {
		return e, nil
	}
	if depth > 20 {
		return nil, errors.New("parent poms nested more than 20 deep")
	}
	if inProject {
		r.files[path] = filecache.Stat(path)
	}
	raw, err := readPom(path)
	if err != nil {
		return nil, err
	}
	e := &effectivePom{props: map[string]string{}, managed: map[string]pomDep{}}
	if raw.Parent.ArtifactID != "" {
		if parent := r.loadParent(path, raw, inProject, depth); parent != nil {
			maps.Copy(e.props, parent.props)
			e.rawManaged = parent.rawManaged
			e.rawDeps = parent.rawDeps
		}
		e.props["project.parent.version"] = raw.Parent.Version
		e.props["project.parent.groupId"] = raw.Parent.GroupID
	}
	maps.Copy(e.props, raw.Properties)
	group := cmp.Or(strings.TrimSpace(raw.GroupID), strings.TrimSpace(raw.Parent.GroupID))
	version := cmp.Or(strings.TrimSpace(raw.Version), strings.TrimSpace(raw.Parent.Version))
	for _, k := range []string{"project.", "pom.", ""} {
		e.props[k+"groupId"], e.props[k+"artifactId"], e.props[k+"version"] = group, raw.ArtifactID, version
	}
	e.rawManaged = overrideDeps(e.rawManaged, raw.DependencyManagement)
	e.rawDeps = overrideDeps(e.rawDeps, raw.Dependencies)
	// Filled in with this pom's properties, the child's overriding its
	// parents' (a parent managing ${jackson.version} gets the child's).
	for _, d := range e.rawManaged {
		d = e.interpolate(d)
		if d.Scope == "import" && d.Type == "pom" {
			if bom, err := r.load(r.repoPath(d.GroupID, d.ArtifactID, d.Version, "", "pom"), false, depth+1); err == nil {
				for k, v := range bom.managed {
					if _, ok := e.managed[k]; !ok {
						e.managed[k] = v
					}
				}
			}
			continue
		}
		e.managed[d.key()] = d
	}
	for _, d := range e.rawDeps {
		e.deps = append(e.deps, e.interpolate(d))
	}
	if inProject {
		e.dir = filepath.Dir(path)
		e.modules = raw.Modules
		e.sources = filepath.Join(e.dir, "src", "main", "java")
		if s := e.expand(raw.Build.SourceDirectory); s != "" {
			e.sources = runner.Resolve(e.dir, s)
		}
	}
	r.poms[path] = e
	return e, nil
}

// loadParent finds raw's parent: at relativePath (default ../pom.xml) in
// the project when that pom is the parent, else in the local repository.
func (r *mavenResolver) loadParent(path string, raw *pomFile, inProject bool, depth int) *effectivePom {
	p := raw.Parent
	if inProject {
		rel := "../pom.xml"
		if p.RelativePath != nil {
			rel = strings.TrimSpace(*p.RelativePath)
		}
		if rel != "" {
			local := runner.Resolve(filepath.Dir(path), rel)
			if fi, err := os.Stat(local); err == nil && fi.IsDir() {
				local = filepath.Join(local, "pom.xml")
			}
			if lp, err := readPom(local); err == nil && lp.ArtifactID == p.ArtifactID {
				if e, err := r.load(local, true, depth+1); err == nil {
					return e
				}
			}
		}
	}
	e, err := r.load(r.repoPath(p.GroupID, p.ArtifactID, p.Version, "", "pom"), false, depth+1)
	if err != nil {
		return nil
	}
	return e
}

// overrideDeps returns inherited with own's entries added, an entry of own
// replacing the inherited one of the same groupId:artifactId (a child's
// junit 4.13 over its parent's 4.12). own's entries come first.
func overrideDeps(inherited, own []pomDep) []pomDep {
	if len(own) == 0 {
		return inherited
	}
	out := slices.Clone(own)
	for _, d := range inherited {
		if !slices.ContainsFunc(own, func(o pomDep) bool { return o.key() == d.key() && o.Classifier == d.Classifier }) {
			out = append(out, d)
		}
	}
	return out
}

// propRe matches a ${property} reference.
var propRe = regexp.MustCompile(`\$\{([^}]+)\}`)

// expand replaces the ${properties} of s, repeatedly (a property may name
// another); an unknown one stays as written.
func (e *effectivePom) expand(s string) string {
	for range 10 {
		if !strings.Contains(s, "${") {
			break
		}
		next := propRe.ReplaceAllStringFunc(s, func(m string) string {
			if v, ok := e.props[m[2:len(m)-1]]; ok {
				return v
			}
			return m
		})
		if next == s {
			break
		}
		s = next
	}
	return strings.TrimSpace(s)
}

func (e *effectivePom) interpolate(d pomDep) pomDep {
	d.GroupID, d.ArtifactID, d.Version = e.expand(d.GroupID), e.expand(d.ArtifactID), e.expand(d.Version)
	d.Scope, d.Type, d.Classifier = e.expand(d.Scope), e.expand(d.Type), e.expand(d.Classifier)
	return d
}

// managedVersion applies the first of managed that manages d: it fills in
// d's missing version and scope, or, with override, replaces them.
func managedVersion(d pomDep, override bool, managed ...map[string]pomDep) pomDep {
	for _, m := range managed {
		md, ok := m[d.key()]
		if !ok {
			continue
		}
		if md.Version != "" && (override || d.Version == "") {
			d.Version = md.Version
		}
		if md.Scope != "" && (override || d.Scope == "") {
			d.Scope = md.Scope
		}
		if len(d.Exclusions) == 0 {
			d.Exclusions = md.Exclusions
		}
		break
	}
	return d
}

// mavenClasspath is a Maven project's class path from the local repository.
type mavenClasspath struct {
	jars    []string // found in the local repository
	sources []string // main source directories of the reactor's modules it depends on
	// moduleJars are those modules' jars installed in the local repository
	// (mvn install), for the test run, which compiles only its own module.
	moduleJars []string
	missing    []string // group:artifact:version not in the local repository
	files      filecache.Files
	// resolved is when; a class path with missing artifacts is resolved
	// again after missingRecheck (mvn dependency:go-offline may have run).
	resolved time.Time
}

// resolveMaven reads the project pom at pomPath and returns its class path:
// the jars of its dependencies of every scope (test included, so test
// files compile) and of theirs of scope compile and runtime, from repo.
func resolveMaven(pomPath, repo string) (*mavenClasspath, error) {
	r := &mavenResolver{repo: repo, poms: map[string]*effectivePom{}, files: filecache.Files{}}
	root, err := r.load(pomPath, true, 0)
	if err != nil {
		return nil, err
	}
	modules := r.reactorModules(pomPath)
	cp := &mavenClasspath{files: r.files}
	type queued struct {
		dep      pomDep
		direct   bool              // declared by the project itself
		managed  map[string]pomDep // the declaring pom's own management
		excluded []pomDep          // the exclusions on the path to it
	}
	queue := make([]queued, 0, len(root.deps))
	for _, d := range root.deps {
		queue = append(queue, queued{dep: d, direct: true})
	}
	// enqueue adds the dependencies of a dependency reached through q.
	enqueue := func(q queued, deps []pomDep, managed map[string]pomDep) {
		excluded := append(slices.Clip(q.excluded), q.dep)
		for _, td := range deps {
			queue = append(queue, queued{dep: td, managed: managed, excluded: excluded})
		}
	}
	seen := map[string]bool{root.props["project.groupId"] + ":" + root.props["project.artifactId"]: true}
	seenFiles := map[string]bool{}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		d := q.dep
		if q.direct {
			d = managedVersion(d, false, root.managed)
		} else {
			// The project's management decides a transitive dependency's
			// version and scope; the declaring pom's fills in the rest.
			d = managedVersion(managedVersion(d, true, root.managed), false, q.managed)
			if !isTransitive(d) {
				continue
			}
		}
		if slices.ContainsFunc(q.excluded, func(x pomDep) bool { return x.excludes(d.GroupID, d.ArtifactID) }) {
			continue
		}
		if d.Scope == "system" || d.Scope == "import" || (d.Type != "" && d.Type != "jar" && d.Type != "test-jar") {
			continue
		}
		// Nearest first: a nearer declaration of the artifact took it.
		if !q.direct && seen[d.key()] || seenFiles[d.artifactKey()] {
			continue
		}
		seen[d.key()], seenFiles[d.artifactKey()] = true, true
		if len(seenFiles) > maxMavenArtifacts {
			cp.missing = append(cp.missing, fmt.Sprintf("(more than %d artifacts: the rest)", maxMavenArtifacts))
			break
		}
		if m, ok := modules[d.key()]; ok {
			cp.sources = append(cp.sources, m.sources)
			if jar := r.repoPath(d.GroupID, d.ArtifactID, d.Version, "", "jar"); d.Version != "" && exists(jar) {
				cp.moduleJars = append(cp.moduleJars, jar)
			}
			enqueue(queued{dep: d, excluded: q.excluded}, m.deps, m.managed)
			continue
		}
		if d.Version == "" || strings.ContainsAny(d.Version, "[(,${") {
			cp.missing = append(cp.missing, d.key()+":"+cmp.Or(d.Version, "?"))
			continue
		}
		classifier := d.Classifier
		if d.Type == "test-jar" && classifier == "" {
			classifier = "tests"
		}
		jar := r.repoPath(d.GroupID, d.ArtifactID, d.Version, classifier, "jar")
		if !exists(jar) {
			cp.missing = append(cp.missing, d.key()+":"+d.Version)
			continue
		}
		cp.jars = append(cp.jars, jar)
		dp, err := r.load(r.repoPath(d.GroupID, d.ArtifactID, d.Version, "", "pom"), false, 0)
		if err != nil {
			continue // a jar without its pom: no transitive dependencies known
		}
		enqueue(queued{dep: d, excluded: q.excluded}, dp.deps, dp.managed)
	}
	return cp, nil
}

// missingError says which dependencies were not found and how to get them.
func (cp *mavenClasspath) missingError() error {
	shown := cp.missing[:min(len(cp.missing), 3)]
	more := ""
	if n := len(cp.missing) - len(shown); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return fmt.Errorf("%d Maven dependencies are not in the local repository (%s%s), so javac may not find their classes: "+
		"run `mvn dependency:go-offline` once, or set java.classpath", len(cp.missing), strings.Join(shown, ", "), more)
}

// isTransitive reports whether a dependency of a dependency is needed too.
func isTransitive(d pomDep) bool {
	return (d.Scope == "" || d.Scope == "compile" || d.Scope == "runtime") && d.Optional != "true"
}

// reactorModules finds the multi-module build pomPath belongs to (the
// topmost aggregator above it, through the parents' relativePath and the
// directories above) and returns its modules by groupId:artifactId.
func (r *mavenResolver) reactorModules(pomPath string) map[string]*effectivePom {
	top := pomPath
	if exists(filepath.Join(filepath.Dir(pomPath), ".git")) {
		top = "" // the repository's root: no reactor above it
	}
	for dir := filepath.Dir(filepath.Dir(pomPath)); top != ""; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "pom.xml")
		if _, err := os.Stat(p); err != nil {
			break
		}
		top = p
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil || filepath.Dir(dir) == dir {
			break
		}
	}
	modules := map[string]*effectivePom{}
	var walk func(path string, depth int)
	walk = func(path string, depth int) {
		e, err := r.load(path, true, 0)
		if err != nil || depth > 10 {
			return
		}
		modules[e.props["project.groupId"]+":"+e.props["project.artifactId"]] = e
		for _, m := range e.modules {
			p := runner.Resolve(e.dir, e.expand(m))
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				p = filepath.Join(p, "pom.xml")
			}
			walk(p, depth+1)
		}
	}
	walk(cmp.Or(top, pomPath), 0)
	return modules
}

// missingRecheck is how long a class path that lacks artifacts is kept.
const missingRecheck = 10 * time.Second

// MavenCache keeps each Maven project's resolved class path until one of
// its pom files changes (and a class path that lacks artifacts for
// missingRecheck). One serves a Linter and a Tester (LinterOptions.Maven,
// TesterOptions.Maven), so that a project is resolved once for both. The
// zero value is ready; it is safe for concurrent use.
type MavenCache struct {
	cache filecache.Cache[*mavenClasspath]
}

// forFile returns the class path file's Maven project (the nearest pom.xml)
// gets from the local repository; an empty one outside a Maven project or
// when its pom cannot be read (javac's errors then say what is missing).
func (c *MavenCache) forFile(ctx context.Context, logger *slog.Logger, file string) *mavenClasspath {
	pom := runner.FindUp(filepath.Dir(file), "pom.xml")
	if pom == "" {
		return &mavenClasspath{}
	}
	cp, err := c.classpath(pom, localRepository())
	if err != nil {
		logger.DebugContext(ctx, "java: reading the Maven project", "pom", pom, "err", err)
		return &mavenClasspath{}
	}
	return cp
}

// classpath returns the class path of the Maven project whose pom.xml is
// pomPath, resolved against the local repository repo.
func (c *MavenCache) classpath(pomPath, repo string) (*mavenClasspath, error) {
	fresh := func(cp *mavenClasspath) bool {
		return len(cp.missing) == 0 || time.Since(cp.resolved) < missingRecheck
	}
	return c.cache.Get(pomPath+"\x00"+repo, fresh, func() (*mavenClasspath, filecache.Files, error) {
		before := filecache.Files{pomPath: filecache.Stat(pomPath)}
		cp, err := resolveMaven(pomPath, repo)
		if err != nil {
			return nil, before, err
		}
		cp.resolved = time.Now()
		return cp, cp.files, nil
	})
}

// localRepository is Maven's local repository: $MAVEN_REPO_LOCAL, else
// the localRepository of ~/.m2/settings.xml, else ~/.m2/repository.
func localRepository() string {
	if r := os.Getenv("MAVEN_REPO_LOCAL"); r != "" {
		return r
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	m2 := filepath.Join(home, ".m2")
	if f, err := os.Open(filepath.Join(m2, "settings.xml")); err == nil {
		defer f.Close()
		var settings struct {
			LocalRepository string `xml:"localRepository"`
		}
		if xml.NewDecoder(io.LimitReader(f, 1<<20)).Decode(&settings) == nil {
			if r := strings.TrimSpace(strings.ReplaceAll(settings.LocalRepository, "${user.home}", home)); r != "" {
				return r
			}
		}
	}
	return filepath.Join(m2, "repository")
}
