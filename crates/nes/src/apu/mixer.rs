//! The 2A03's non-linear DACs, as the nesdev wiki's "APU Mixer" formulas (blargg's
//! measurements):
//! pulse_out = 95.88 / (8128 / (p1 + p2) + 100) and
//! tnd_out = 159.79 / (1 / (t / 8227 + n / 12241 + d / 22638) + 100), both 0 for a zero sum.
//!
//! Each group is one resistor network: the outputs add conductances, so how far a step of one
//! channel moves the output depends on the others, and the DMC's level turns the triangle and
//! the noise down. The wiki's 203-entry table for the TND group rounds the triangle's and the
//! noise's weights to 3 and 2 DMC steps where they are 2.75 and 1.85, making both about 9 %
//! too loud against the DMC, which blargg's `apu_mixer` tests hear; the formula is one division.

const fn pulse_table() -> [f32; 31] {
    let mut table = [0.0; 31];
    let mut n = 1;
    while n < 31 {
        table[n] = 95.88 / (8128.0 / n as f32 + 100.0);
        n += 1;
    }
    table
}

const PULSE_TABLE: [f32; 31] = pulse_table();

/// The TND group's conductance per output step, in units of its reference.
const TRIANGLE_STEP: f32 = 1.0 / 8227.0;
const NOISE_STEP: f32 = 1.0 / 12241.0;
const DMC_STEP: f32 = 1.0 / 22638.0;

/// The mixed level, 0.0 to about 1.0, of the five channel outputs.
pub fn mix(pulse1: u8, pulse2: u8, triangle: u8, noise: u8, dmc: u8) -> f32 {
    let pulse = PULSE_TABLE[usize::from(pulse1 + pulse2)];
    let tnd = f32::from(triangle) * TRIANGLE_STEP
        + f32::from(noise) * NOISE_STEP
        + f32::from(dmc) * DMC_STEP;
    pulse + 159.79 * tnd / (1.0 + 100.0 * tnd)
}

/// The pulse group's level for the sum of two pulse outputs (0-30): the level of the 2A03's
/// pulses, and of expansion pulses the wiki measures as loud as those (MMC5's).
pub fn pulses(sum: u8) -> f32 {
    PULSE_TABLE[usize::from(sum.min(30))]
}

/// The TND group's level with only the DMC sounding at `level` (0-255: MMC5's 8-bit PCM is
/// as loud as the DMC for the same value, twice as loud with its eighth bit).
pub fn dmc_alone(level: u8) -> f32 {
    let tnd = f32::from(level) * DMC_STEP;
    159.79 * tnd / (1.0 + 100.0 * tnd)
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
