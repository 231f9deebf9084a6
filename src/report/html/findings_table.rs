//! A probe case's findings (issue 30) as a table: per probed field the
//! reading its lanes follow, or why the device disagrees with itself, from
//! the case's `findings` in the report. What a device does with bits the ISA
//! leaves open: neither a pass nor a fail of the ISA.

use super::esc;
use crate::report::document::Findings;

/// The table of a case's findings.
pub fn table(findings: &Findings) -> String {
    let mut out = String::from(
        "<table class=\"findings\"><tr><th class=\"l\">field</th><th class=\"l\">verdict</th><th class=\"l\">readings every lane follows</th><th>lanes</th><th class=\"l\">first lane that does not</th></tr>\n",
    );
    for field in &findings.fields {
        let verdict = field.verdict.name();
        let sample = field.first_dissenting.or(field.first_unmatched);
        let (lane_attr, lane_text) = match sample {
            Some(s) => (
                format!(" data-lane=\"{}\"", s.lane),
                format!(
                    "lane {}: a=0x{:08x} b=0x{:08x} c=0x{:08x} got 0x{:08x}",
                    s.lane, s.a, s.b, s.c, s.got
                ),
            ),
            None => (String::new(), String::new()),
        };
        out += &format!(
            "<tr class=\"finding-{verdict}\" data-field=\"{}\" data-verdict=\"{verdict}\"{lane_attr}><td class=\"l\">{}</td><td class=\"l\">{verdict}</td><td class=\"l\">{}</td><td>{}</td><td class=\"l mono\">{}</td></tr>\n",
            esc(&field.field),
            esc(&field.field),
            esc(&field.follows.join(" or ")),
            field.lanes,
            esc(&lane_text),
        );
    }
    out += "</table>\n";
    if let Some(c) = findings.first_changed {
        out += &format!(
            "<p class=\"note\" data-changed=\"{}\">{} lanes changed between two dispatches of the same inputs (first: lane {} word {}: 0x{:08x}, then 0x{:08x})</p>\n",
            c.lane, findings.lanes_changed, c.lane, c.word, c.first, c.second,
        );
    }
    out + "<p class=\"note\">a finding says what this device does with bits the ISA leaves open; it is neither a pass nor a fail of the ISA</p>\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_disagreeing_field_names_its_lane() {
        let findings = json!({"lanes_changed": 0, "fields": [
            {"field": "NEG[0]", "word": 1, "verdict": "follows", "follows": ["sign bit flipped"], "lanes": 64,
             "matched": [{"reading": "sign bit flipped", "lanes": 64}], "unmatched": 0},
            {"field": "ABS[1]", "word": 2, "verdict": "disagree", "follows": [], "lanes": 64,
             "matched": [], "unmatched": 0,
             "first_dissenting": {"lane": 17, "a": 1, "b": 2, "c": 3, "got": 4}}
        ]});
        let html = table(&serde_json::from_value(findings).unwrap());
        assert!(
            html.contains("data-field=\"NEG[0]\" data-verdict=\"follows\">"),
            "{html}"
        );
        assert!(
            html.contains("<td class=\"l\">sign bit flipped</td>"),
            "{html}"
        );
        assert!(
            html.contains("data-field=\"ABS[1]\" data-verdict=\"disagree\" data-lane=\"17\""),
            "{html}"
        );
        assert!(!html.contains("data-changed"), "{html}");
    }
}
