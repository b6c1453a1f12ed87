//! The 2A03's non-linear DAC mix, as the two lookup tables of the nesdev wiki's "APU Mixer":
//! pulse_out = 95.52 / (8128 / (p1 + p2) + 100) and
//! tnd_out = 163.67 / (24329 / (3 t + 2 n + d) + 100), both 0 for a zero sum.

const fn pulse_table() -> [f32; 31] {
    let mut table = [0.0; 31];
    let mut n = 1;
    while n < 31 {
        table[n] = 95.52 / (8128.0 / n as f32 + 100.0);
        n += 1;
    }
    table
}

const fn tnd_table() -> [f32; 203] {
    let mut table = [0.0; 203];
    let mut n = 1;
    while n < 203 {
        table[n] = 163.67 / (24329.0 / n as f32 + 100.0);
        n += 1;
    }
    table
}

const PULSE_TABLE: [f32; 31] = pulse_table();
const TND_TABLE: [f32; 203] = tnd_table();

/// The mixed level, 0.0 to about 1.0, of the five channel outputs.
pub fn mix(pulse1: u8, pulse2: u8, triangle: u8, noise: u8, dmc: u8) -> f32 {
    let pulse = usize::from(pulse1 + pulse2);
    let tnd = 3 * usize::from(triangle) + 2 * usize::from(noise) + usize::from(dmc);
    PULSE_TABLE[pulse] + TND_TABLE[tnd]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silence_is_zero_and_full_scale_is_near_one() {
        assert_eq!(mix(0, 0, 0, 0, 0), 0.0);
        let full = mix(15, 15, 15, 15, 127);
        assert!((full - 1.0).abs() < 0.01, "full mix {full}");
    }

    #[test]
    fn pulses_add_non_linearly() {
        let one = mix(15, 0, 0, 0, 0);
        let two = mix(15, 15, 0, 0, 0);
        assert!(two < 2.0 * one && two > 1.5 * one);
    }
}
