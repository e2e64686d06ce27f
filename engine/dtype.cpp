// engine/dtype.cpp - IEEE half-precision conversions (scalar reference).
#include "dtype.h"

namespace engine {

float f16_to_f32(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) { // inf or nan
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) { // normal
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) { // zero
    bits = sign;
  } else { // subnormal: normalize
    int shift = 0;
    while (!(mant & 0x400u)) {
      mant <<= 1;
      ++shift;
    }
    mant &= 0x3ffu;
    bits = sign | (uint32_t(113 - shift) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t f32_to_f16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
  uint32_t absb = bits & 0x7fffffffu;
  if (absb > 0x7f800000u) // nan
    return uint16_t(sign | 0x7e00u);
  if (absb >= 0x477ff000u) // rounds to >= 65520: inf
    return uint16_t(sign | 0x7c00u);
  if (absb < 0x38800000u) { // below the smallest normal half: subnormal or 0
    float a;
    std::memcpy(&a, &absb, 4);
    // 2^-24 is one half-subnormal ulp; nearbyint rounds to nearest even.
    float scaled = a * 16777216.0f;
    uint32_t m = uint32_t(scaled);
    float rem = scaled - float(m);
    if (rem > 0.5f || (rem == 0.5f && (m & 1u)))
      ++m;
    return uint16_t(sign | m);
  }
  uint32_t exp = (absb >> 23) - 112;
  uint32_t mant = absb & 0x7fffffu;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    ++h; // may carry into the exponent, which is still correct
  return uint16_t(sign | h);
}

} // namespace engine
