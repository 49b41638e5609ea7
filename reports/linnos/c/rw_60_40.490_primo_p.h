/* linnos_primo_p: PrDTClassifier exported by primo 0.1.0 (primo.export.to_c), integer mode.
 *
 * Input: x[0..8], one value per feature:
 *   x[0] pending_now  (scale 1)
 *   x[1] pending_prev1  (scale 1)
 *   x[2] pending_prev2  (scale 1)
 *   x[3] pending_prev3  (scale 1)
 *   x[4] pending_prev4  (scale 1)
 *   x[5] latency_prev1  (scale 1)
 *   x[6] latency_prev2  (scale 1)
 *   x[7] latency_prev3  (scale 1)
 *   x[8] latency_prev4  (scale 1)
 * Classes (index returned by *_predict -> label):
 *   0: 0
 *   1: 1
 * int linnos_primo_p_leaf(const int64_t *x): leaf number, 0..12.
 * int linnos_primo_p_predict(const int64_t *x): class index.
 * Integer mode: pass round(value * scale) per feature, LINNOS_PRIMO_P_MISSING for a missing value.
 * Check: on 6002 rows: 0 predictions and 0 paths differ from the float model.
 */
#ifndef LINNOS_PRIMO_P_H
#define LINNOS_PRIMO_P_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif
#define LINNOS_PRIMO_P_MISSING (-9223372036854775807LL - 1) /* INT64_MIN */
#define LINNOS_PRIMO_P_SCORE_SCALE 1000000
#define LINNOS_PRIMO_P_N_FEATURES 9
#define LINNOS_PRIMO_P_N_CLASSES 2

static const int linnos_primo_p_leaf_class[13] = {
    0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1
};

static inline int linnos_primo_p_leaf(const int64_t *x)
{
    if (x[0] <= 56) {
        if (x[5] <= 2068) {
            if (x[0] <= 48) {
                return 0;
            } else {
                if (x[5] <= 1460) {
                    return 1;
                } else {
                    return 2;
                }
            }
        } else {
            if (x[8] <= 2407 && x[8] != LINNOS_PRIMO_P_MISSING) {
                if (x[8] <= 2243) {
                    if (x[2] <= 46 && x[2] != LINNOS_PRIMO_P_MISSING) {
                        return 3;
                    } else {
                        return 4;
                    }
                } else {
                    return 5;
                }
            } else {
                if (x[5] <= 2941 && x[5] != LINNOS_PRIMO_P_MISSING) {
                    return 6;
                } else {
                    if (x[8] <= 2845 && x[8] != LINNOS_PRIMO_P_MISSING) {
                        return 7;
                    } else {
                        if (x[0] <= 25 && x[0] != LINNOS_PRIMO_P_MISSING) {
                            return 8;
                        } else {
                            return 9;
                        }
                    }
                }
            }
        }
    } else {
        if (x[5] <= 1153 && x[5] != LINNOS_PRIMO_P_MISSING) {
            return 10;
        } else {
            if (x[6] <= 871 && x[6] != LINNOS_PRIMO_P_MISSING) {
                return 11;
            } else {
                return 12;
            }
        }
    }
}

static inline int linnos_primo_p_predict(const int64_t *x)
{
    return linnos_primo_p_leaf_class[linnos_primo_p_leaf(x)];
}

#endif /* LINNOS_PRIMO_P_H */
