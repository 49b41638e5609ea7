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
 * int linnos_primo_p_leaf(const int64_t *x): leaf number, 0..28.
 * int linnos_primo_p_predict(const int64_t *x): class index.
 * Integer mode: pass round(value * scale) per feature, LINNOS_PRIMO_P_MISSING for a missing value.
 * Check: on 8328 rows: 0 predictions and 0 paths differ from the float model.
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

static const int linnos_primo_p_leaf_class[29] = {
    0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0
};

static inline int linnos_primo_p_leaf(const int64_t *x)
{
    if (x[8] <= 1839 && x[8] != LINNOS_PRIMO_P_MISSING) {
        if (x[5] <= 1188 && x[5] != LINNOS_PRIMO_P_MISSING) {
            if (x[3] <= 40 && x[3] != LINNOS_PRIMO_P_MISSING) {
                if (x[0] <= 47 && x[0] != LINNOS_PRIMO_P_MISSING) {
                    return 0;
                } else {
                    return 1;
                }
            } else {
                if (x[0] <= 61 && x[0] != LINNOS_PRIMO_P_MISSING) {
                    return 2;
                } else {
                    return 3;
                }
            }
        } else {
            if (x[0] <= 61 && x[0] != LINNOS_PRIMO_P_MISSING) {
                if (x[4] <= 60 && x[4] != LINNOS_PRIMO_P_MISSING) {
                    if (x[5] <= 1268 && x[5] != LINNOS_PRIMO_P_MISSING) {
                        if (x[5] <= 1265) {
                            if (x[5] <= 1191 && x[5] != LINNOS_PRIMO_P_MISSING) {
                                return 4;
                            } else {
                                return 5;
                            }
                        } else {
                            return 6;
                        }
                    } else {
                        if (x[6] <= 1408 && x[6] != LINNOS_PRIMO_P_MISSING) {
                            return 7;
                        } else {
                            return 8;
                        }
                    }
                } else {
                    if (x[0] <= 55 && x[0] != LINNOS_PRIMO_P_MISSING) {
                        return 9;
                    } else {
                        return 10;
                    }
                }
            } else {
                if (x[5] <= 1189 && x[5] != LINNOS_PRIMO_P_MISSING) {
                    return 11;
                } else {
                    if (x[7] <= 1207 && x[7] != LINNOS_PRIMO_P_MISSING) {
                        return 12;
                    } else {
                        if (x[8] <= 1188 && x[8] != LINNOS_PRIMO_P_MISSING) {
                            return 13;
                        } else {
                            return 14;
                        }
                    }
                }
            }
        }
    } else {
        if (x[0] <= 62) {
            if (x[7] <= 2131 && x[7] != LINNOS_PRIMO_P_MISSING) {
                if (x[0] <= 54 && x[0] != LINNOS_PRIMO_P_MISSING) {
                    return 15;
                } else {
                    return 16;
                }
            } else {
                if (x[7] <= 2196 && x[7] != LINNOS_PRIMO_P_MISSING) {
                    if (x[0] <= 49 && x[0] != LINNOS_PRIMO_P_MISSING) {
                        return 17;
                    } else {
                        return 18;
                    }
                } else {
                    if (x[0] <= 32 && x[0] != LINNOS_PRIMO_P_MISSING) {
                        if (x[6] <= 2750 && x[6] != LINNOS_PRIMO_P_MISSING) {
                            return 19;
                        } else {
                            if (x[7] <= 2760 && x[7] != LINNOS_PRIMO_P_MISSING) {
                                return 20;
                            } else {
                                return 21;
                            }
                        }
                    } else {
                        if (x[3] <= 62) {
                            return 22;
                        } else {
                            if (x[0] <= 56 && x[0] != LINNOS_PRIMO_P_MISSING) {
                                return 23;
                            } else {
                                return 24;
                            }
                        }
                    }
                }
            }
        } else {
            if (x[7] <= 1937 && x[7] != LINNOS_PRIMO_P_MISSING) {
                return 25;
            } else {
                if (x[7] <= 8308) {
                    if (x[3] <= 59 && x[3] != LINNOS_PRIMO_P_MISSING) {
                        return 26;
                    } else {
                        return 27;
                    }
                } else {
                    return 28;
                }
            }
        }
    }
}

static inline int linnos_primo_p_predict(const int64_t *x)
{
    return linnos_primo_p_leaf_class[linnos_primo_p_leaf(x)];
}

#endif /* LINNOS_PRIMO_P_H */
