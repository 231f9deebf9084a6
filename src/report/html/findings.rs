//! A probe case's findings (issue 30) as a table: per probed field the
//! reading its lanes follow, or why the device disagrees with itself, from
//! the case's `findings` in the report. What a device does with bits the ISA
//! leaves open: neither a pass nor a fail of the ISA.

use serde_json::Value;

use super::{esc, num, text_of};

/// The table, or nothing for a case without findings.
pub fn table(case: &Value) -> String {
    let findings = &case["findings"];
    let Some(fields) = findings["fields"].as_array() else {
        return String::new();
    };
    let mut out = String::from(
        "<table class=\"findings\"><tr><th class=\"l\">field</th><th class=\"l\">verdict</th><th class=\"l\">readings every lane follows</th><th>lanes</th><th class=\"l\">first lane that does not</th></tr>\n",
    );
    for field in fields {
        let verdict = text_of(field, "verdict");
        let follows: Vec<&str> = field["follows"]
            .as_array()
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let sample = [&field["first_dissenting"], &field["first_unmatched"]]
            .into_iter()
            .find(|s| s.is_object());
        let (lane_attr, lane_text) = match sample {
            Some(s) => (
                format!(" data-lane=\"{}\"", num(s, "lane")),
                format!(
                    "lane {}: a=0x{:08x} b=0x{:08x} c=0x{:08x} got 0x{:08x}",
                    num(s, "lane"),
                    num(s, "a"),
                    num(s, "b"),
                    num(s, "c"),
                    num(s, "got")
                ),
            ),
            None => (String::new(), String::new()),
        };
        out += &format!(
            "<tr class=\"finding-{verdict}\" data-field=\"{}\" data-verdict=\"{verdict}\"{lane_attr}><td class=\"l\">{}</td><td class=\"l\">{verdict}</td><td class=\"l\">{}</td><td>{}</td><td class=\"l mono\">{}</td></tr>\n",
            esc(text_of(field, "field")),
            esc(text_of(field, "field")),
            esc(&follows.join(" or ")),
            num(field, "lanes"),
            esc(&lane_text),
        );
    }
    out += "</table>\n";
    if let Some(c) = findings["first_changed"]
        .as_object()
        .map(|_| &findings["first_changed"])
    {
        out += &format!(
            "<p class=\"note\" data-changed=\"{}\">{} lanes changed between two dispatches of the same inputs (first: lane {} word {}: 0x{:08x}, then 0x{:08x})</p>\n",
            num(c, "lane"),
            num(findings, "lanes_changed"),
            num(c, "lane"),
            num(c, "word"),
            num(c, "first"),
            num(c, "second"),
        );
    }
    out + "<p class=\"note\">a finding says what this device does with bits the ISA leaves open; it is neither a pass nor a fail of the ISA</p>\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_disagreeing_field_names_its_lane_and_a_case_without_findings_draws_nothing() {
        assert_eq!(table(&json!({"case": "basic"})), "");
        let case = json!({"findings": {"lanes_changed": 0, "fields": [
            {"field": "NEG[0]", "verdict": "follows", "follows": ["sign bit flipped"], "lanes": 64},
            {"field": "ABS[1]", "verdict": "disagree", "follows": [], "lanes": 64,
             "first_dissenting": {"lane": 17, "a": 1, "b": 2, "c": 3, "got": 4}}
        ]}});
        let html = table(&case);
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
