//! Reading JUnit reports, beside the writer ([`super::to_junit`]): `merge`
//! joins the JUnit reports of a fleet's nodes. Each input is parsed with
//! quick-xml and checked to be well-formed XML 1.0 as it is copied:
//! quick-xml checks tags, their nesting and (configured so) comments; the
//! characters, references and names it lets through are checked here
//! ([`ill_formed`]). Its `<testsuite>` elements are copied, event by event,
//! into one `<testsuites>` whose totals are recounted from the test cases.

use std::path::Path;

use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::{Reader, Writer};

use crate::error::{Error, Result};

/// Counts of one `<testsuite>`, recounted from its test cases.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Totals {
    tests: u64,
    failures: u64,
    errors: u64,
    skipped: u64,
    time: f64,
}

impl Totals {
    fn add(&mut self, other: Totals) {
        self.tests += other.tests;
        self.failures += other.failures;
        self.errors += other.errors;
        self.skipped += other.skipped;
        self.time += other.time;
    }
}

/// Merge JUnit documents (each `<testsuites>` or a lone `<testsuite>`), each
/// with its label: every top-level `<testsuite>` is copied as it is, except
/// that a name already taken by an earlier suite gets ` [<file stem>]`
/// appended (two nodes' suites are otherwise both `xad-harness gfx1100`).
/// Returns the document and the number of suites.
pub fn merge_junit(inputs: &[(String, String)]) -> Result<(String, usize)> {
    let mut body = Writer::new(Vec::new());
    let mut totals = Totals::default();
    let mut names: Vec<String> = Vec::new();
    for (file, xml) in inputs {
        let stem = Path::new(file)
            .file_stem()
            .map_or_else(|| file.clone(), |s| s.to_string_lossy().into_owned());
        copy_suites(xml, &stem, &mut body, &mut names, &mut totals)
            .map_err(|why| Error::Usage(format!("{file}: {why}")))?;
    }
    let mut out = Writer::new(Vec::new());
    let io = |e: std::io::Error| Error::Io(format!("building the merged JUnit report: {e}"));
    out.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
        .map_err(io)?;
    out.write_event(Event::Text(BytesText::new("\n")))
        .map_err(io)?;
    let mut root = BytesStart::new("testsuites");
    root.push_attribute(("name", "xad-harness"));
    root.push_attribute(("tests", totals.tests.to_string().as_str()));
    root.push_attribute(("failures", totals.failures.to_string().as_str()));
    root.push_attribute(("errors", totals.errors.to_string().as_str()));
    root.push_attribute(("skipped", totals.skipped.to_string().as_str()));
    root.push_attribute(("time", format!("{:.3}", totals.time).as_str()));
    out.write_event(Event::Start(root)).map_err(io)?;
    let mut bytes = out.into_inner();
    bytes.extend_from_slice(&body.into_inner());
    bytes.extend_from_slice(b"\n</testsuites>\n");
    let xml = String::from_utf8(bytes)
        .map_err(|e| Error::Io(format!("building the merged JUnit report: {e}")))?;
    // Copied from checked inputs, the result is well-formed; read back with
    // the same checks, so that a bug here is a fault, never an unreadable report.
    well_formed(&xml).map_err(|why| {
        Error::Io(format!(
            "the merged JUnit report would not be well-formed XML ({why}); nothing written"
        ))
    })?;
    Ok((xml, names.len()))
}

/// Copy the top-level suites of one document into `out`, adding their
/// totals. Errors say what is wrong, without the file name.
fn copy_suites(
    xml: &str,
    stem: &str,
    out: &mut Writer<Vec<u8>>,
    names: &mut Vec<String>,
    totals: &mut Totals,
) -> std::result::Result<(), String> {
    let mut reader = reader(xml);
    let mut copy = SuiteCopy {
        stem,
        names,
        totals,
        depth: 0,
        root: None,
        suite: None,
        skipping: None,
    };
    let mut first = true;
    // Text outside the root element, first seen.
    let mut stray: Option<String> = None;
    loop {
        let event = reader.read_event().map_err(|e| {
            format!(
                "not well-formed XML at byte {}: {e}",
                reader.error_position()
            )
        })?;
        let position = reader.buffer_position();
        if let Err(why) = ill_formed(&event, first) {
            return Err(format!("not well-formed XML near byte {position}: {why}"));
        }
        first = false;
        if copy.depth == 0 {
            match top_level(&event, copy.root.is_some()) {
                Err(why) => return Err(format!("not well-formed XML near byte {position}: {why}")),
                // Said after "no root element", when there is one.
                Ok(Some(why)) => {
                    stray.get_or_insert(format!("not well-formed XML near byte {position}: {why}"));
                }
                Ok(None) => {}
            }
        }
        match event {
            Event::Eof => break,
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                copy.start(out, &event, e, empty)?;
            }
            Event::End(ref e) => copy.end(out, e)?,
            // A processing instruction is for the program that wrote the
            // input, not for the merged report's readers: dropped.
            Event::PI(_) => {}
            // Text, CDATA, references and comments inside a suite are copied
            // as they are (checked above, still escaped); outside one, dropped.
            other => {
                if copy.suite.is_some() && copy.skipping.is_none() {
                    write_event(out, other)?;
                }
            }
        }
    }
    if copy.root.is_none() {
        return Err("not a JUnit report (no root element)".into());
    }
    if copy.depth != 0 {
        return Err("not well-formed XML: the document ends inside an element".into());
    }
    stray.map_or(Ok(()), Err)
}

/// A reader of `xml` with quick-xml's checks on: end tags match their start
/// tags (its default), and no comment holds `--`.
fn reader(xml: &str) -> Reader<&[u8]> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_comments = true;
    reader
}

/// Write one event of a copied suite.
fn write_event(out: &mut Writer<Vec<u8>>, event: Event) -> std::result::Result<(), String> {
    out.write_event(event)
        .map_err(|e| format!("copying a test suite: {e}"))
}

/// Where [`copy_suites`] is in one document: which suite it copies, and
/// what it reads through without copying.
struct SuiteCopy<'a> {
    stem: &'a str,
    names: &'a mut Vec<String>,
    totals: &'a mut Totals,
    /// Elements open, the root included.
    depth: usize,
    root: Option<String>,
    suite: Option<SuiteScan>,
    /// Depth of an element directly under <testsuites> that is not a suite
    /// (<properties> etc.): read, checked, not copied.
    skipping: Option<usize>,
}

impl SuiteCopy<'_> {
    /// Whether an element opening (or closing) at this depth is a suite.
    fn at_suite_level(&self) -> bool {
        match self.root.as_deref() {
            Some("testsuites") => self.depth == 1,
            _ => self.depth == 0,
        }
    }

    /// An element opens (`empty`: and closes at once).
    fn start(
        &mut self,
        out: &mut Writer<Vec<u8>>,
        event: &Event,
        e: &BytesStart,
        empty: bool,
    ) -> std::result::Result<(), String> {
        if self.skipping.is_some() {
            self.depth += usize::from(!empty);
            return Ok(());
        }
        let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        if self.root.is_none() {
            if name != "testsuites" && name != "testsuite" {
                return Err(format!(
                    "not a JUnit report (root element <{name}>, expected <testsuites> or <testsuite>)"
                ));
            }
            self.root = Some(name.clone());
        }
        if self.at_suite_level() {
            return self.start_suite(out, &name, e, empty);
        }
        if let Some(scan) = self.suite.as_mut() {
            scan.element(&name, e, empty, self.depth)?;
            write_event(out, event.borrow())?;
        }
        if !empty {
            self.depth += 1;
        }
        Ok(())
    }

    /// An element opens where suites stand: a suite is copied under a name
    /// no earlier suite took; anything else is skipped.
    fn start_suite(
        &mut self,
        out: &mut Writer<Vec<u8>>,
        name: &str,
        e: &BytesStart,
        empty: bool,
    ) -> std::result::Result<(), String> {
        if name != "testsuite" {
            // <properties> etc. directly under <testsuites>: not ours to
            // keep, but read through (and checked) like the rest: an input
            // is well-formed everywhere or refused.
            if !empty {
                self.skipping = Some(self.depth);
                self.depth += 1;
            }
            return Ok(());
        }
        let scan = SuiteScan::start(e)?;
        let start = unique_name(e, &scan.name, self.stem, self.names)?;
        write_event(out, Event::Text(BytesText::new("\n    ")))?;
        if empty {
            write_event(out, Event::Empty(start))?;
            scan.finish(self.totals);
        } else {
            write_event(out, Event::Start(start))?;
            self.depth += 1;
            self.suite = Some(scan);
        }
        Ok(())
    }

    /// An element closes; a suite that closes adds its totals.
    fn end(&mut self, out: &mut Writer<Vec<u8>>, e: &BytesEnd) -> std::result::Result<(), String> {
        self.depth = self.depth.saturating_sub(1);
        if self.skipping.is_some() {
            if self.skipping == Some(self.depth) {
                self.skipping = None;
            }
            return Ok(());
        }
        if let Some(scan) = self.suite.as_mut() {
            let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
            scan.end(&name, self.depth);
            write_event(out, Event::End(e.borrow()))?;
            if self.at_suite_level() {
                if let Some(done) = self.suite.take() {
                    done.finish(self.totals);
                }
            }
        }
        Ok(())
    }
}

/// Why `xml` is not a well-formed XML 1.0 document as far as the merge can
/// tell (quick-xml's checks and [`ill_formed`]'s), if it is not.
fn well_formed(xml: &str) -> std::result::Result<(), String> {
    let mut reader = reader(xml);
    let mut first = true;
    let mut depth = 0usize;
    let mut rooted = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("at byte {}: {e}", reader.error_position()))?;
        let near = |why: String| format!("near byte {}: {why}", reader.buffer_position());
        ill_formed(&event, first).map_err(near)?;
        first = false;
        if depth == 0 {
            if let Some(why) = top_level(&event, rooted).map_err(near)? {
                return Err(near(why.into()));
            }
        }
        match event {
            Event::Start(_) => {
                depth += 1;
                rooted = true;
            }
            Event::Empty(_) => rooted = true,
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Eof if depth == 0 && rooted => return Ok(()),
            Event::Eof if depth == 0 => return Err("no root element".into()),
            Event::Eof => return Err("the document ends inside an element".into()),
            _ => {}
        }
    }
}

/// What an event outside every element breaks: a second root element
/// (`Err`), or text that is not white space (`Ok(Some)`: the caller says it
/// only after checking that there is a root at all). `rooted`: the root
/// element came before.
fn top_level(event: &Event, rooted: bool) -> std::result::Result<Option<&'static str>, String> {
    match event {
        Event::Start(_) | Event::Empty(_) if rooted => Err("a second root element".into()),
        Event::Text(t) if !t.iter().all(|b| b" \t\r\n".contains(b)) => {
            Ok(Some("text outside the root element"))
        }
        Event::CData(_) | Event::GeneralRef(_) => Ok(Some("text outside the root element")),
        _ => Ok(None),
    }
}

/// What in one event breaks XML 1.0 where quick-xml lets it through: it
/// checks tags, their nesting and comments ([`reader`]), not characters (a control character such
/// as U+0001 is allowed nowhere, not even as `&#1;`), references (only `&lt;`
/// `&gt;` `&amp;` `&apos;` `&quot;` and character references are defined
/// without a DTD) or names. Copied into the merged report, any of
/// these would make it unreadable. A DTD is refused outright: a JUnit report
/// has none, and the entities it declares would not come through the merge.
/// `first`: no event came before this one (where an XML declaration belongs).
fn ill_formed(event: &Event, first: bool) -> std::result::Result<(), String> {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    match event {
        Event::DocType(_) => Err(
            "a DTD (<!DOCTYPE ...>): a JUnit report has none, and the entities it declares would not survive the merge"
                .into(),
        ),
        Event::Decl(_) if !first => Err("an XML declaration after the start of the document".into()),
        Event::Decl(_) | Event::Eof | Event::End(_) => Ok(()),
        Event::Start(e) | Event::Empty(e) => {
            let element = text(e.name().as_ref());
            if !is_xml_name(&element) {
                return Err(format!("an element named {element:?}, not an XML name"));
            }
            for attribute in e.attributes() {
                let attribute = attribute.map_err(|e| format!("in <{element}>: {e}"))?;
                let key = text(attribute.key.as_ref());
                if !is_xml_name(&key) {
                    return Err(format!("in <{element}>: an attribute named {key:?}, not an XML name"));
                }
                let place = || format!("attribute {key} of <{element}>");
                if attribute.value.contains(&b'<') {
                    return Err(format!("a raw '<' in {}", place()));
                }
                // Unescaping refuses an undefined entity or a malformed
                // reference; the characters are checked after it, so that a
                // reference to a forbidden one (`&#1;`) is caught too.
                let value = attribute
                    .unescape_value()
                    .map_err(|e| format!("{}: {e}", place()))?;
                legal_chars(&value, &place())?;
            }
            Ok(())
        }
        Event::Text(t) => {
            let raw = text(t.as_ref());
            legal_chars(&raw, "text")?;
            if raw.contains("]]>") {
                return Err("\"]]>\" in text (it ends only a CDATA section)".into());
            }
            Ok(())
        }
        Event::GeneralRef(r) => {
            let name = text(r.as_ref());
            if r.is_char_ref() {
                match r.resolve_char_ref() {
                    Ok(Some(c)) => legal_chars(&c.to_string(), &format!("the reference &{name};")),
                    _ => Err(format!("a malformed character reference &{name};")),
                }
            } else if ["lt", "gt", "amp", "apos", "quot"].contains(&name.as_str()) {
                Ok(())
            } else {
                Err(format!(
                    "an undefined entity &{name}; (without a DTD only &lt; &gt; &amp; &apos; &quot; are defined)"
                ))
            }
        }
        Event::CData(c) => legal_chars(&text(c.as_ref()), "a CDATA section"),
        Event::Comment(c) => legal_chars(&text(c.as_ref()), "a comment"),
        Event::PI(p) => legal_chars(&text(p.as_ref()), "a processing instruction"),
    }
}

/// The first character XML 1.0 does not allow (`Char`: tab, newline,
/// carriage return and U+0020 up, less the surrogates, U+FFFE and U+FFFF).
fn legal_chars(text: &str, place: &str) -> std::result::Result<(), String> {
    let legal = |c: char| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
    match text.chars().find(|&c| !legal(c)) {
        Some(c) => Err(format!(
            "U+{:04X} in {place}, a character XML 1.0 does not allow",
            u32::from(c)
        )),
        None => Ok(()),
    }
}

/// Whether `name` is an XML 1.0 `Name` (element and attribute names).
fn is_xml_name(name: &str) -> bool {
    let start = |c: char| {
        matches!(c, ':' | 'A'..='Z' | '_' | 'a'..='z' | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}'
            | '\u{F8}'..='\u{2FF}' | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}'
            | '\u{200C}'..='\u{200D}' | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}'
            | '\u{3001}'..='\u{D7FF}' | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}'
            | '\u{10000}'..='\u{EFFFF}')
    };
    let rest = |c: char| {
        start(c)
            || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
    };
    let mut chars = name.chars();
    chars.next().is_some_and(start) && chars.all(rest)
}

/// The suite's start tag, renamed when an earlier suite has its name.
fn unique_name(
    start: &BytesStart,
    name: &str,
    stem: &str,
    names: &mut Vec<String>,
) -> std::result::Result<BytesStart<'static>, String> {
    let mut chosen = name.to_string();
    let mut n = 1;
    while names.contains(&chosen) {
        n += 1;
        chosen = if n == 2 {
            format!("{name} [{stem}]")
        } else {
            format!("{name} [{stem} {n}]")
        };
    }
    names.push(chosen.clone());
    if chosen == name {
        return Ok(start.to_owned());
    }
    let mut renamed = BytesStart::new("testsuite");
    let mut named = false;
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|e| format!("a malformed attribute: {e}"))?;
        if attribute.key.as_ref() == b"name" {
            renamed.push_attribute(("name", chosen.as_str()));
            named = true;
        } else {
            renamed.push_attribute(attribute);
        }
    }
    if !named {
        renamed.push_attribute(("name", chosen.as_str()));
    }
    Ok(renamed)
}

/// What one suite's events add up to while it is copied.
struct SuiteScan {
    name: String,
    /// The suite's own `time`, when it has one; else the cases' times are summed.
    time: Option<f64>,
    totals: Totals,
    /// Depth of the open `<testcase>` and what it holds so far.
    case: Option<(usize, CaseOutcome)>,
}

#[derive(Default)]
struct CaseOutcome {
    failure: bool,
    error: bool,
    skipped: bool,
}

impl SuiteScan {
    fn start(e: &BytesStart) -> std::result::Result<SuiteScan, String> {
        Ok(SuiteScan {
            name: attribute(e, "name")?.unwrap_or_default(),
            time: attribute(e, "time")?.and_then(|t| t.trim().parse().ok()),
            totals: Totals::default(),
            case: None,
        })
    }

    fn element(
        &mut self,
        name: &str,
        e: &BytesStart,
        empty: bool,
        depth: usize,
    ) -> std::result::Result<(), String> {
        match (name, self.case.as_mut()) {
            ("testcase", None) => {
                self.totals.tests += 1;
                if let Some(t) = attribute(e, "time")?.and_then(|t| t.trim().parse::<f64>().ok()) {
                    self.totals.time += t;
                }
                if empty {
                    return Ok(());
                }
                self.case = Some((depth, CaseOutcome::default()));
            }
            ("failure", Some((_, outcome))) => outcome.failure = true,
            ("error", Some((_, outcome))) => outcome.error = true,
            ("skipped", Some((_, outcome))) => outcome.skipped = true,
            _ => {}
        }
        Ok(())
    }

    fn end(&mut self, name: &str, depth: usize) {
        if name != "testcase" || !matches!(self.case, Some((d, _)) if d == depth) {
            return;
        }
        if let Some((_, outcome)) = self.case.take() {
            // One outcome per case, the worst: an error, then a failure, then skipped.
            if outcome.error {
                self.totals.errors += 1;
            } else if outcome.failure {
                self.totals.failures += 1;
            } else if outcome.skipped {
                self.totals.skipped += 1;
            }
        }
    }

    fn finish(self, totals: &mut Totals) {
        let mut own = self.totals;
        if let Some(t) = self.time {
            own.time = t;
        }
        totals.add(own);
    }
}

fn attribute(e: &BytesStart, key: &str) -> std::result::Result<Option<String>, String> {
    for attribute in e.attributes() {
        let attribute = attribute.map_err(|e| format!("a malformed attribute: {e}"))?;
        if attribute.key.as_ref() == key.as_bytes() {
            let value = attribute
                .unescape_value()
                .map_err(|e| format!("attribute {key}: {e}"))?;
            return Ok(Some(value.into_owned()));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::exit;

    const SUITE_A: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="xad-harness" tests="3" failures="1" errors="0">
    <testsuite name="xad-harness gfx1100" tests="3" errors="0" failures="1" time="0.500">
        <properties>
            <property name="host" value="node1"/>
        </properties>
        <testcase name="basic" classname="xad.gfx1100" time="0.1">
            <system-out>PASS basic &amp; more &lt;ok&gt;</system-out>
        </testcase>
        <testcase name="vgpr" classname="xad.gfx1100" time="0.2">
            <failure message="lane 3 &quot;wrong&quot;" type="mismatch"><![CDATA[lane 3 <got>]]></failure>
        </testcase>
        <testcase name="hi" classname="xad.gfx1100"><skipped message="interrupted"/></testcase>
    </testsuite>
</testsuites>
"#;

    const SUITE_B: &str = r#"<testsuite name="xad-harness gfx1100" tests="2">
  <testcase name="basic" time="0.25"/>
  <testcase name="dpp"><error message="watchdog"/></testcase>
</testsuite>"#;

    #[test]
    fn junit_suites_are_concatenated_with_recounted_totals() {
        let (xml, suites) = merge_junit(&[
            ("reports/1/node1.xml".into(), SUITE_A.into()),
            ("reports/1/node2.xml".into(), SUITE_B.into()),
        ])
        .unwrap();
        assert_eq!(suites, 2);
        assert!(
            xml.contains(r#"<testsuites name="xad-harness" tests="5" failures="1" errors="1" skipped="1" time="0.750">"#),
            "{xml}"
        );
        // The first suite keeps its name; the second, a duplicate, is named by its file.
        assert!(
            xml.contains(r#"<testsuite name="xad-harness gfx1100" tests="3""#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<testsuite name="xad-harness gfx1100 [node2]" tests="2">"#),
            "{xml}"
        );
        // Escaped text, attributes and CDATA come through unchanged.
        assert!(xml.contains("PASS basic &amp; more &lt;ok&gt;"), "{xml}");
        assert!(
            xml.contains(r#"message="lane 3 &quot;wrong&quot;""#),
            "{xml}"
        );
        assert!(xml.contains("<![CDATA[lane 3 <got>]]>"), "{xml}");
        assert!(
            xml.contains(r#"<property name="host" value="node1"/>"#),
            "{xml}"
        );
        // And the result is well-formed and merges again.
        let (again, n) = merge_junit(&[("m.xml".into(), xml.clone())]).unwrap();
        assert_eq!(n, 2);
        assert!(
            again.contains(r#"tests="5" failures="1" errors="1" skipped="1" time="0.750""#),
            "{again}"
        );
        assert_eq!(xml.matches("<testsuite ").count(), 2);
        assert_eq!(xml.matches("</testsuites>").count(), 1);
    }

    #[test]
    fn junit_inputs_that_are_not_junit_are_refused() {
        for (xml, want) in [
            ("", "no root element"),
            ("not xml at all", "no root element"),
            ("<html><body/></html>", "root element <html>"),
            (
                "<testsuites><testsuite name=\"a\"></testsuites>",
                "not well-formed",
            ),
            (
                "<testsuites><testsuite name=\"a\">",
                "ends inside an element",
            ),
        ] {
            let e = merge_junit(&[("bad.xml".into(), xml.into())]).unwrap_err();
            assert_eq!(e.exit_code(), exit::USAGE);
            let text = e.to_string();
            assert!(
                text.starts_with("bad.xml: ") && text.contains(want),
                "{xml:?}: {text}"
            );
        }
    }

    #[test]
    fn an_empty_suite_counts_nothing() {
        let (xml, n) = merge_junit(&[(
            "e.xml".into(),
            "<testsuites><testsuite name=\"none\" tests=\"0\"/></testsuites>".into(),
        )])
        .unwrap();
        assert_eq!(n, 1);
        assert!(
            xml.contains(r#"tests="0" failures="0" errors="0" skipped="0" time="0.000""#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<testsuite name="none" tests="0"/>"#),
            "{xml}"
        );
    }
}
