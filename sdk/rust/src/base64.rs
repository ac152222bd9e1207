//! Standard base64 with padding, for the bodies and messages the host
//! carries as text (the kit depends on serde and serde_json only).

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Encodes bytes.
pub fn encode(data: &[u8]) -> String {
    let mut out = String::with_capacity((data.len() + 2) / 3 * 4);
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes text; anything but whole groups of the alphabet, padded with
/// `=` at the end only, is an error.
pub fn decode(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    if bytes.len() % 4 != 0 {
        return Err(format!("base64 of {} characters, not a multiple of 4", bytes.len()));
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for (g, group) in bytes.chunks(4).enumerate() {
        let last = (g + 1) * 4 == bytes.len();
        let pad = group.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return Err("misplaced base64 padding".to_string());
        }
        let mut n: u32 = 0;
        for &c in &group[..4 - pad] {
            let v = ALPHABET.iter().position(|&a| a == c).ok_or_else(|| format!("{:?} is not a base64 character", c as char))?;
            n = n << 6 | v as u32;
        }
        n <<= 6 * pad as u32;
        let got = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&got[..3 - pad]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for s in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            assert_eq!(decode(&encode(s.as_bytes())).unwrap(), s.as_bytes());
        }
        assert_eq!(encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(encode(&[0xff, 0xfe]), "//4=");
    }

    #[test]
    fn refuses_what_is_not_base64() {
        for bad in ["a", "ab=c", "a===", "Zm9v!mFy", "Zg==Zg=="] {
            assert!(decode(bad).is_err(), "{}", bad);
        }
    }
}
