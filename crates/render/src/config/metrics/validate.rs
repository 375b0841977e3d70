//! Checks on values the agent parses itself. Upstream passes them through, and one bad value
//! makes the agent refuse the whole config (Q7); we reject the object holding it instead.

use crate::config::common::FieldError;
use crate::rejection::Reason;

/// Prometheus' default `global.scrape_interval` (1m), in milliseconds.
pub const DEFAULT_SCRAPE_INTERVAL_MS: u64 = 60_000;

/// Parses a Prometheus duration (`model.ParseDuration`): `0`, or units in decreasing order
/// from `y w d h m s ms`, each at most once, with integer amounts (`1h30m`, `90s`, `500ms`).
/// Returns milliseconds.
pub fn prometheus_duration(text: &str) -> Result<u64, String> {
    const UNITS: [(&str, u64); 7] = [
        ("y", 365 * 24 * 3_600_000),
        ("w", 7 * 24 * 3_600_000),
        ("d", 24 * 3_600_000),
        ("h", 3_600_000),
        ("m", 60_000),
        ("s", 1_000),
        ("ms", 1),
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
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return Err(invalid());
        }
        let amount: u64 = rest[..digits].parse().map_err(|_| invalid())?;
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
        total = amount
            .checked_mul(factor)
            .and_then(|ms| total.checked_add(ms))
            .filter(|ms| i64::try_from(*ms).is_ok())
            .ok_or_else(|| format!("{text:?} is too long a duration"))?;
    }
    Ok(total)
}

/// Parses a Go `time.Duration` (`time.ParseDuration`): an optional sign, then decimal
/// amounts with units `ns us µs ms s m h` (`1.5h`, `2h45m`, `300ms`), or `0`. Returns
/// nanoseconds (negative allowed).
pub fn go_duration(text: &str) -> Result<i128, String> {
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
    let mut total: i128 = 0;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number = &rest[..number_len];
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return Err(invalid());
        }
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let factor: i128 = match &rest[..unit_len] {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(invalid()),
        };
        rest = &rest[unit_len..];
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        let whole: i128 = if whole.is_empty() {
            0
        } else {
            whole.parse().map_err(|_| invalid())?
        };
        let mut part = whole * factor;
        let mut scale = factor;
        for digit in fraction.chars() {
            scale /= 10;
            part += i128::from(digit.to_digit(10).unwrap_or(0)) * scale;
        }
        total += part;
        if total > i128::from(i64::MAX) {
            return Err(format!("{text:?} is too long a duration"));
        }
    }
    Ok(if negative { -total } else { total })
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
