package java

import (
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
)

// corpusFile is one generated Java file: its path under the project root
// and its text.
type corpusFile struct {
	rel  string
	text string
}

// corpusTemplate writes one file's class body: cls is the class name,
// pkg its package, r the file's random source (seeded by its index, so
// the corpus is the same on every run).
type corpusTemplate struct {
	name string
	gen  func(r *rand.Rand, pkg, cls string) string
}

// javaCorpus generates n Java files (package-info.java files come on
// top), deterministically, from templates and mutations: clean classes,
// style and PMD violations, compile and syntax errors, tabs, Unicode,
// CRLF line ends, newer syntax (records, switch expressions, text blocks)
// that checkstyle 8 cannot parse, references to sibling classes, and JUnit
// test files under src/test/java.
func javaCorpus(n int) []corpusFile {
	var files []corpusFile
	pkgs := map[string]bool{}
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 0x5eed))
		tmpl := corpusTemplates[i%len(corpusTemplates)]
		pkg := fmt.Sprintf("corp.p%d", i%7)
		cls := fmt.Sprintf("%s%d", pick(r, "Widget", "Ledger", "Parser", "Cache", "Report", "Queue"), i)
		root := "src/main/java"
		if tmpl.name == "junit" {
			root = "src/test/java"
			cls += "Test"
		}
		text := tmpl.gen(r, pkg, cls)
		text = mutate(r, text)
		files = append(files, corpusFile{rel: path.Join(root, strings.ReplaceAll(pkg, ".", "/"), cls+".java"), text: text})
		if !pkgs[pkg] && i%7 != 3 {
			pkgs[pkg] = true
			info := "/** Package " + pkg + ". */\npackage " + pkg + ";\n"
			if i%7 == 5 {
				info = "package " + pkg + ";\n" // no Javadoc: checkstyle says so
			}
			files = append(files, corpusFile{rel: path.Join("src/main/java", strings.ReplaceAll(pkg, ".", "/"), "package-info.java"), text: info})
		}
	}
	return files
}

func pick(r *rand.Rand, options ...string) string { return options[r.IntN(len(options))] }

// mutate applies some of the whitespace mutations to text: tabs for
// indentation, trailing blanks, CRLF line ends, a long line, blank lines.
func mutate(r *rand.Rand, text string) string {
	lines := strings.Split(text, "\n")
	if r.IntN(4) == 0 { // tabs
		for i, l := range lines {
			if strings.HasPrefix(l, "        ") && r.IntN(2) == 0 {
				lines[i] = "\t\t" + strings.TrimPrefix(l, "        ")
			} else if strings.HasPrefix(l, "    ") && r.IntN(3) == 0 {
				lines[i] = "\t" + strings.TrimPrefix(l, "    ")
			}
		}
	}
	if r.IntN(5) == 0 { // trailing blanks
		for i := range lines {
			if r.IntN(4) == 0 && lines[i] != "" {
				lines[i] += strings.Repeat(" ", 1+r.IntN(3))
			}
		}
	}
	if r.IntN(6) == 0 && len(lines) > 4 { // a long comment line
		k := 2 + r.IntN(len(lines)-3)
		lines = insertLines(lines, k, "    // "+strings.Repeat("long line ", 12+r.IntN(6)))
	}
	if r.IntN(6) == 0 && len(lines) > 4 { // blank lines
		k := 2 + r.IntN(len(lines)-3)
		lines = insertLines(lines, k, "", "")
	}
	out := strings.Join(lines, "\n")
	if r.IntN(8) == 0 {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return out
}

func insertLines(lines []string, at int, add ...string) []string {
	out := append([]string{}, lines[:at]...)
	out = append(out, add...)
	return append(out, lines[at:]...)
}

var corpusTemplates = []corpusTemplate{
	{"clean", func(r *rand.Rand, pkg, cls string) string {
		n := 2 + r.IntN(9)
		return fmt.Sprintf(`package %s;

/**
 * A %s.
 */
public final class %s {
    /** The size. */
    private final int size;

    /**
     * Makes one.
     *
     * @param size the size
     */
    public %s(final int size) {
        this.size = size;
    }

    /**
     * Returns the size times a factor.
     *
     * @return the product
     */
    public int scaled() {
        return size * %d;
    }
}
`, pkg, strings.ToLower(cls), cls, cls, n)
	}},
	{"style", func(r *rand.Rand, pkg, cls string) string {
		return fmt.Sprintf(`package %s;

import java.util.*;
import java.io.File;

public class %s {
    public int Count;
    private static int total_count=%d;
    public int compute(int x){
        if(x>%d) return x*%d;
        int y = x+%d;
        return y;
    }
    public String name() { return "%s"; }
}
`, pkg, cls, r.IntN(100), 10+r.IntN(50), 3+r.IntN(40), r.IntN(1000), cls)
	}},
	{"pmd", func(r *rand.Rand, pkg, cls string) string {
		loop := 3 + r.IntN(20)
		return fmt.Sprintf(`package %s;

import java.util.ArrayList;
import java.util.List;

/** PMD food. */
public class %s {
    private int unused%d;
    private List<String> items = new ArrayList<>();

    /** Joins. @return text */
    public String join() {
        String s = "";
        for (int i = 0; i < %d; i++) {
            s += items.get(i);
        }
        try {
            Integer.parseInt(s);
        } catch (NumberFormatException e) {
        }
        if (s.equals("")) 
            System.out.println("empty");
        switch (s.length()) {
            case 1:
                return "one";
            case 2:
                return "two";
        }
        return s;
    }

    /** Compares. @param o other @return whether */
    public boolean same(Object o) {
        if (o == null) { return false; }
        return o.toString() == "%s";
    }
}
`, pkg, cls, r.IntN(10), loop, cls)
	}},
	{"compile", func(r *rand.Rand, pkg, cls string) string {
		bodies := []string{
			"        return undefinedVariable + 1;",
			"        String s = 42;\n        return s.length();",
			"        int x = 1;",
			"        return new java.util.ArrayList<String>().size() + missingMethod();",
			"        return 1;\n        System.out.println(\"unreachable\");",
			"        List<String> l = null;\n        return l.size();",
			"        int y = \"text\" * 2;\n        return y;",
		}
		return fmt.Sprintf(`package %s;

/** Does not compile. */
public final class %s {
    private %s() {
    }

    /** @return a number */
    public static int value() {
%s
    }
}
`, pkg, cls, cls, bodies[r.IntN(len(bodies))])
	}},
	{"syntax", func(r *rand.Rand, pkg, cls string) string {
		broken := []string{
			"    public void f( {\n    }",
			"    int x = 1\n    int y = 2;",
			"    void g() {\n        if (true) {\n    }",
			"    void h() { return 1 +; }",
			"    class { }",
			"    void k() { String s = \"unterminated; }",
			"    @ void m() {}",
		}
		return fmt.Sprintf("package %s;\n\n/** Broken. */\npublic class %s {\n%s\n}\n", pkg, cls, broken[r.IntN(len(broken))])
	}},
	{"unicode", func(r *rand.Rand, pkg, cls string) string {
		word := pick(r, "café", "naïve", "größe", "日本語", "ÆØÅ", "😀emoji")
		ident := pick(r, "größe", "café", "δelta", "x")
		return fmt.Sprintf(`package %s;

/** Ünïcödé: %s. */
public final class %s {
    /** Text. */
    public static final String TEXT = "%s \u00e9 \t tab";
    private static int %s = %d;

    private %s() {
    }

    /** @return the length of %s */
    public static int len() {
        String %s2 = TEXT + "%s";  // %s
        return %s2.length() + %s + missing%s;
    }
}
`, pkg, word, cls, word, ident, r.IntN(9), cls, word, ident, word, word, ident, ident, ident)
	}},
	{"sibling", func(r *rand.Rand, pkg, cls string) string {
		return fmt.Sprintf(`package %s;

import java.util.Map;
import java.util.HashMap;

/** Uses its package's other classes. */
public class %s {
    private final Map<String, Integer> counts = new HashMap<>();

    /** @param k key */
    public void add(String k) {
        counts.merge(k, %d, Integer::sum);
        Helper%d h = new Helper%d();
    }
}
`, pkg, cls, 1+r.IntN(5), r.IntN(3), r.IntN(3))
	}},
	{"modern", func(r *rand.Rand, pkg, cls string) string {
		return fmt.Sprintf(`package %s;

/** Newer syntax. */
public final class %s {
    /** A point. */
    public record Point(int x, int y) { }

    private %s() {
    }

    /**
     * Names a day.
     *
     * @param d the day
     * @return its name
     */
    public static String name(int d) {
        var text = """
            day %d
            """;
        return switch (d) {
            case 1 -> "one";
            case 2 -> text;
            default -> { yield "many"; }
        };
    }

    /** @param o any @return its size */
    public static int size(Object o) {
        if (o instanceof String s && !s.isEmpty()) {
            return s.length();
        }
        return %d;
    }
}
`, pkg, cls, cls, r.IntN(7), r.IntN(100))
	}},
	{"enum", func(r *rand.Rand, pkg, cls string) string {
		return fmt.Sprintf(`package %s;

/** Colours. */
public enum %s {
    RED, GREEN, blue;

    static {
        System.out.println("loaded %d");
    }

    /** @return the next */
    public %s next() {
        return values()[(ordinal() + 1) %% values().length];
    }
}
`, pkg, cls, r.IntN(100), cls)
	}},
	{"interface", func(r *rand.Rand, pkg, cls string) string {
		return fmt.Sprintf(`package %s;

import java.util.function.Function;

/** A shape. */
public interface %s<T extends Comparable<T>> {
    /** @return the area */
    double area();

    /** @param f mapper @return mapped */
    default <R> R map(Function<? super %s<T>, R> f) {
        return f.apply(this);
    }

    int CONSTANT = %d;
    public static final String name = "x";
}
`, pkg, cls, cls, r.IntN(50))
	}},
	{"junit", func(r *rand.Rand, pkg, cls string) string {
		return fmt.Sprintf(`package %s;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class %s {
    @Test
    void adds() {
        assertEquals(%d, 1 + %d);
    }

    @Test
    void fails() {
        assertEquals(1, undefinedThing());
    }
}
`, pkg, cls, 1+r.IntN(3), r.IntN(3))
	}},
	{"misc", func(r *rand.Rand, pkg, cls string) string {
		switch r.IntN(4) {
		case 0:
			return "" // empty file
		case 1:
			return "// only a comment\n"
		case 2:
			return fmt.Sprintf("package %s;\nclass %s {}", pkg, cls) // no final newline
		}
		return fmt.Sprintf("package wrong.pkg%d;\n\n/** Misplaced. */\npublic class %s {\n    /** x. */\n    public static final long BIG = %dL;\n}\n", r.IntN(3), cls, r.Int64())
	}},
}

// corpusHelpers are the sibling template's helper classes.
func corpusHelpers() []corpusFile {
	var files []corpusFile
	for p := range 7 {
		for h := range 3 {
			pkg := fmt.Sprintf("corp.p%d", p)
			files = append(files, corpusFile{
				rel:  path.Join("src/main/java", strings.ReplaceAll(pkg, ".", "/"), fmt.Sprintf("Helper%d.java", h)),
				text: fmt.Sprintf("package %s;\n\n/** A helper. */\npublic class Helper%d {\n}\n", pkg, h),
			})
		}
	}
	return files
}
