//! Checks on values the agent parses itself. Upstream passes them through, and one bad value
//! makes the agent refuse the whole config (Q7); we reject the object holding it instead.

use crate::config::common::FieldError;
use crate::rejection::Reason;

/// Prometheus' default `global.scrape_interval` (1m), in milliseconds.
pub const DEFAULT_SCRAPE_INTERVAL_MS: u64 = 60_000;

/// The longest duration either parser accepts: Go's `time.Duration` is an int64 count of
/// nanoseconds, and both parsers refuse what does not fit.
const MAX_NANOS: u64 = i64::MAX as u64;

/// Parses a Prometheus duration (`model.ParseDuration`): `0`, or units in decreasing order
/// from `y w d h m s ms`, each at most once, with integer amounts (`1h30m`, `90s`, `500ms`).
/// Like Prometheus, refuses a total beyond int64 nanoseconds (about 292 years).
/// Returns milliseconds.
pub fn prometheus_duration(text: &str) -> Result<u64, String> {
    const MS: u64 = 1_000_000;
    const UNITS: [(&str, u64); 7] = [
        ("y", 365 * 24 * 3_600_000 * MS),
        ("w", 7 * 24 * 3_600_000 * MS),
        ("d", 24 * 3_600_000 * MS),
        ("h", 3_600_000 * MS),
        ("m", 60_000 * MS),
        ("s", 1_000 * MS),
        ("ms", MS),
    ];
    let invalid = || format!("{text:?} is not a duration (e.g. 30s, 1m, 1h30m)");
    if text == "0" {
        return Ok(0);
    }
    if text.is_empty() {
        return Err(invalid());
    }
    let mut rest = text;
    let mut next_unit = 0;
    let mut total_ns: u64 = 0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return Err(invalid());
        }
        let amount = &rest[..digits];
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let Some(offset) = UNITS[next_unit..].iter().position(|(u, _)| *u == unit) else {
            return Err(invalid());
        };
        let (_, factor) = UNITS[next_unit + offset];
        next_unit += offset + 1;
        // An amount too long for u64 is out of range too (Go's ParseUint fails on it).
        total_ns = amount
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(factor))
            .and_then(|ns| total_ns.checked_add(ns))
            .filter(|ns| *ns <= MAX_NANOS)
            .ok_or_else(|| too_long(text))?;
    }
    Ok(total_ns / MS)
}

/// Parses a Go `time.Duration` (`time.ParseDuration`): an optional sign, then decimal
/// amounts with units `ns us µs ms s m h` (`1.5h`, `2h45m`, `300ms`, `1.s`, `.5s`), or `0`.
/// Refuses what Go refuses, overflow of int64 nanoseconds included. Returns nanoseconds.
pub fn go_duration(text: &str) -> Result<i64, String> {
    let invalid = || format!("{text:?} is not a duration (e.g. 30s, 1m, 1h30m)");
    let (negative, mut rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    // The magnitude may reach 2^63 for a negative duration (i64::MIN).
    let limit = if negative { MAX_NANOS + 1 } else { MAX_NANOS };
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let whole_len = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let whole = &rest[..whole_len];
        rest = &rest[whole_len..];
        let fraction = match rest.strip_prefix('.') {
            Some(after) => {
                let len = after
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(after.len());
                rest = &after[len..];
                &after[..len]
            }
            None => "",
        };
        if whole.is_empty() && fraction.is_empty() {
            return Err(invalid());
        }
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit: u64 = match &rest[..unit_len] {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(invalid()),
        };
        rest = &rest[unit_len..];
        let whole_ns = if whole.is_empty() {
            Some(0)
        } else {
            whole.parse::<u64>().ok().and_then(|n| n.checked_mul(unit))
        };
        total = whole_ns
            .and_then(|ns| ns.checked_add(fraction_of(fraction, unit)))
            .and_then(|ns| total.checked_add(ns))
            .filter(|ns| *ns <= limit)
            .ok_or_else(|| too_long(text))?;
    }
    Ok(if negative {
        0i64.checked_sub_unsigned(total).unwrap_or(i64::MIN)
    } else {
        i64::try_from(total).map_err(|_| too_long(text))?
    })
}

/// `0.<digits>` of `unit` nanoseconds, rounded down. Digits past nanosecond precision do not
/// count, as in Go, so an arbitrarily long fraction is fine.
fn fraction_of(digits: &str, unit: u64) -> u64 {
    let mut scale = unit;
    let mut ns = 0;
    for digit in digits.bytes() {
        scale /= 10;
        if scale == 0 {
            break;
        }
        ns += u64::from(digit - b'0') * scale;
    }
    ns
}

fn too_long(text: &str) -> String {
    format!(
        "{text:?} is out of range: a duration must be within about 292 years (int64 nanoseconds)"
    )
}

/// Checks an optional Prometheus duration field; empty values are absent and fine.
pub fn check_prometheus_duration(
    value: &Option<String>,
    field: &str,
) -> Result<Option<u64>, FieldError> {
    match value.as_deref().filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => prometheus_duration(v)
            .map(Some)
            .map_err(|e| FieldError::because(Reason::InvalidDuration, field, e)),
    }
}

/// Whether `name` is a valid Prometheus label name (`[a-zA-Z_][a-zA-Z0-9_]*`).
pub fn is_label_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Checks a job's own interval and timeout (Prometheus `ScrapeConfig.Validate`): both must
/// parse, and the timeout must not exceed the interval, the job's or else the global one.
pub fn check_scrape_timing(
    interval: &Option<String>,
    timeout: &Option<String>,
    global_interval_ms: u64,
    field_prefix: &str,
) -> Result<(), FieldError> {
    let interval_field = format!("{field_prefix}interval");
    let timeout_field = format!("{field_prefix}scrapeTimeout");
    let interval_ms = check_prometheus_duration(interval, &interval_field)?;
    let timeout_ms = check_prometheus_duration(timeout, &timeout_field)?;
    let effective_interval = interval_ms.unwrap_or(global_interval_ms);
    if let Some(t) = timeout_ms
        && t > effective_interval
    {
        let whose = if interval_ms.is_some() {
            "its interval"
        } else {
            "the GrafanaAgent's scrape interval (spec.metrics.scrapeInterval, default 1m)"
        };
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            timeout_field,
            format!(
                "scrape timeout {:?} is longer than {whose}; Prometheus refuses such a job",
                timeout.as_deref().unwrap_or_default()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prometheus_durations_follow_model_parse_duration() {
        assert_eq!(prometheus_duration("0"), Ok(0));
        assert_eq!(prometheus_duration("30s"), Ok(30_000));
        assert_eq!(prometheus_duration("1h30m"), Ok(5_400_000));
        assert_eq!(prometheus_duration("1d2h"), Ok(93_600_000));
        assert_eq!(prometheus_duration("500ms"), Ok(500));
        assert_eq!(prometheus_duration("1m500ms"), Ok(60_500));
        assert_eq!(prometheus_duration("2w"), Ok(1_209_600_000));
        for bad in [
            "", "30", "1.5s", "s", "1m1h", "1s1s", "-1s", "1 s", "1sec", "1m1m",
        ] {
            assert!(
                prometheus_duration(bad).is_err(),
                "{bad:?} must be rejected"
            );
        }
        assert!(prometheus_duration("9999999999y").is_err());
    }

    #[test]
    fn prometheus_durations_refuse_what_overflows_int64_nanoseconds() {
        // 292y is the last whole year under 2^63 ns; Prometheus refuses 293y (and 300y,
        // which fits easily in milliseconds).
        assert_eq!(prometheus_duration("292y"), Ok(292 * 365 * 86_400_000));
        for bad in [
            "293y",
            "300y",
            "106752d",
            "9223372036855s",
            "292y52w",
            "99999999999999999999999h",
            "94522879700260684295381836h",
        ] {
            let err = prometheus_duration(bad).unwrap_err();
            assert!(err.contains("out of range"), "{bad:?}: {err}");
        }
        assert_eq!(prometheus_duration("106751d"), Ok(106_751 * 86_400_000));
    }

    #[test]
    fn go_durations_refuse_what_overflows_int64_nanoseconds() {
        assert_eq!(go_duration("9223372036854775807ns"), Ok(i64::MAX));
        assert_eq!(go_duration("-9223372036854775808ns"), Ok(i64::MIN));
        assert_eq!(go_duration("2562047h"), Ok(2_562_047 * 3_600_000_000_000));
        for bad in [
            "9223372036854775808ns",
            "-9223372036854775809ns",
            "2562048h",
            "2562047h48m",
            "94522879700260684295381836h",
            "18446744073709551616ns",
            "99999999999999999999999999999999999999999h",
            "1.99999999999999999999999999999999999999999999999999h2562047h",
        ] {
            let err = go_duration(bad).unwrap_err();
            assert!(err.contains("out of range"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn go_durations_take_what_go_takes() {
        assert_eq!(go_duration("1.s"), Ok(1_000_000_000));
        assert_eq!(go_duration("+5m"), Ok(300_000_000_000));
        assert_eq!(go_duration("-0"), Ok(0));
        assert_eq!(go_duration("1h1h"), Ok(7_200_000_000_000));
        assert_eq!(go_duration("1µs1μs1us"), Ok(3_000));
        assert_eq!(go_duration("0.000000000001s"), Ok(0));
        assert_eq!(
            go_duration(&format!("1.{}s", "5".repeat(10_000))),
            Ok(1_555_555_555)
        );
        for bad in [
            "+", "-", "1e3s", "1s ", " 1s", "1S", "1.5.5s", "+-1s", "00", "1y",
        ] {
            assert!(go_duration(bad).is_err(), "{bad:?} must be rejected");
        }
    }

    #[test]
    fn go_durations_follow_time_parse_duration() {
        assert_eq!(go_duration("0"), Ok(0));
        assert_eq!(go_duration("1.5h"), Ok(5_400_000_000_000));
        assert_eq!(go_duration("2h45m"), Ok(9_900_000_000_000));
        assert_eq!(go_duration("300ms"), Ok(300_000_000));
        assert_eq!(go_duration("-1m"), Ok(-60_000_000_000));
        assert_eq!(go_duration(".5s"), Ok(500_000_000));
        for bad in ["", "1d", "30", "1..5s", "h", "1 h", "."] {
            assert!(go_duration(bad).is_err(), "{bad:?} must be rejected");
        }
    }

    #[test]
    fn label_names() {
        assert!(is_label_name("cluster"));
        assert!(is_label_name("__replica__"));
        assert!(is_label_name("_a9"));
        assert!(!is_label_name(""));
        assert!(!is_label_name("9a"));
        assert!(!is_label_name("a-b"));
        assert!(!is_label_name("a.b"));
    }

    #[test]
    fn timeout_must_not_exceed_the_interval() {
        let s = |v: &str| Some(v.to_owned());
        assert!(check_scrape_timing(&s("30s"), &s("10s"), 60_000, "e.").is_ok());
        assert!(check_scrape_timing(&s("30s"), &s("30s"), 60_000, "e.").is_ok());
        let err = check_scrape_timing(&s("10s"), &s("30s"), 60_000, "e.").unwrap_err();
        assert_eq!(err.field, "e.scrapeTimeout");
        // Without its own interval, the global one applies.
        assert!(check_scrape_timing(&None, &s("30s"), 60_000, "e.").is_ok());
        assert!(check_scrape_timing(&None, &s("30s"), 15_000, "e.").is_err());
        let err = check_scrape_timing(&s("30"), &None, 60_000, "e.").unwrap_err();
        assert_eq!(err.field, "e.interval");
    }
}
