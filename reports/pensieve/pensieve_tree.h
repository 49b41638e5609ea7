/* pensieve_tree: PrDTClassifier exported by primo 0.1.0 (primo.export.to_c), float mode.
 *
 * Input: x[0..24], one value per feature:
 *   x[0] last_bitrate_kbps
 *   x[1] buffer_s
 *   x[2] throughput_MBps_lag0
 *   x[3] throughput_MBps_lag1
 *   x[4] throughput_MBps_lag2
 *   x[5] throughput_MBps_lag3
 *   x[6] throughput_MBps_lag4
 *   x[7] throughput_MBps_lag5
 *   x[8] throughput_MBps_lag6
 *   x[9] throughput_MBps_lag7
 *   x[10] download_time_s_lag0
 *   x[11] download_time_s_lag1
 *   x[12] download_time_s_lag2
 *   x[13] download_time_s_lag3
 *   x[14] download_time_s_lag4
 *   x[15] download_time_s_lag5
 *   x[16] download_time_s_lag6
 *   x[17] download_time_s_lag7
 *   x[18] next_size_MB_300kbps
 *   x[19] next_size_MB_750kbps
 *   x[20] next_size_MB_1200kbps
 *   x[21] next_size_MB_1850kbps
 *   x[22] next_size_MB_2850kbps
 *   x[23] next_size_MB_4300kbps
 *   x[24] chunks_left
 * Classes (index returned by *_predict -> label):
 *   0: 0
 *   1: 1
 *   2: 3
 *   3: 5
 * int pensieve_tree_leaf(const double *x): leaf number, 0..41.
 * int pensieve_tree_predict(const double *x): class index.
 * void pensieve_tree_predict_proba(const double *x, double *proba): 4 probabilities.
 */
#ifndef PENSIEVE_TREE_H
#define PENSIEVE_TREE_H

#define PENSIEVE_TREE_N_FEATURES 25
#define PENSIEVE_TREE_N_CLASSES 4

static const double pensieve_tree_leaf_proba[168] = {
    0.9911764705882353, 0.008823529411764706, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
    0.03614457831325301, 0.963855421686747, 0.0, 0.0, 0.03468208092485549, 0.9653179190751445, 0.0,
    0.0, 0.0, 0.9788732394366197, 0.02112676056338028, 0.0, 0.9873417721518988,
    0.012658227848101266, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.05263157894736842, 0.9473684210526315,
    0.0, 0.0, 0.07317073170731707, 0.926829268292683, 0.0, 0.0, 0.0027100271002710027,
    0.9966124661246613, 0.0006775067750677507, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.975, 0.025, 0.0,
    1.0, 0.0, 0.0, 0.0, 0.08333333333333333, 0.9166666666666666, 0.0, 0.0, 0.0, 0.9756944444444444,
    0.024305555555555556, 0.0, 0.0, 0.07407407407407407, 0.9259259259259259, 0.0, 0.0,
    0.07246376811594203, 0.927536231884058, 0.0, 0.0, 0.9444444444444444, 0.05555555555555555, 0.0,
    0.0, 0.1, 0.9, 0.0, 0.0, 0.9347826086956522, 0.06521739130434782, 0.0, 0.0, 0.7272727272727273,
    0.2727272727272727, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.03529411764705882, 0.9647058823529412, 0.0,
    1.0, 0.0, 0.0, 0.0, 0.0297029702970297, 0.900990099009901, 0.06930693069306931, 0.0, 1.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.07894736842105263, 0.9210526315789473, 0.0, 0.0, 1.0, 0.0,
    0.0, 0.0, 0.002173913043478261, 0.9926086956521739, 0.0052173913043478265, 0.0, 0.0,
    0.9259259259259259, 0.07407407407407407, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0,
    0.0, 0.07142857142857142, 0.0, 0.9285714285714286, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0
};

static const int pensieve_tree_leaf_class[42] = {
    0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 2, 1, 0, 1, 1, 2, 2, 1, 2, 1, 1, 2, 2, 0, 1, 0, 2,
    2, 1, 2, 2, 3, 3, 2, 2, 2, 3
};

static inline int pensieve_tree_leaf(const double *x)
{
    if (!((float)x[0] > 1300.0)) {
        if ((float)x[0] <= 525.0) {
            if (!((float)x[1] > 14.613136768341064)) {
                if (!((float)x[2] > 0.10394562780857086)) {
                    return 0;
                } else {
                    if ((float)x[1] <= 10.057937145233154) {
                        if (!((float)x[2] > 0.18712949007749557)) {
                            return 1;
                        } else {
                            return 2;
                        }
                    } else {
                        if ((float)x[2] <= 0.12447218596935272) {
                            if (!((float)x[1] > 13.190830707550049)) {
                                if (!((float)x[4] > 0.10503989085555077)) {
                                    if (!((float)x[6] > 0.10942445322871208)) {
                                        return 3;
                                    } else {
                                        return 4;
                                    }
                                } else {
                                    return 5;
                                }
                            } else {
                                return 6;
                            }
                        } else {
                            return 7;
                        }
                    }
                }
            } else {
                return 8;
            }
        } else {
            if ((float)x[1] <= 10.292130470275879) {
                if ((float)x[10] <= 1.907892107963562) {
                    return 9;
                } else {
                    if (!((float)x[3] > 0.11568117886781693)) {
                        if (!((float)x[4] > 0.13853317499160767)) {
                            return 10;
                        } else {
                            if ((float)x[1] <= 7.8701183795928955) {
                                return 11;
                            } else {
                                return 12;
                            }
                        }
                    } else {
                        return 13;
                    }
                }
            } else {
                if (!((float)x[2] > 0.2290019690990448)) {
                    if (!((float)x[1] > 24.820252418518066)) {
                        if (!((float)x[2] > 0.17362945526838303)) {
                            if (!((float)x[10] > 7.842060327529907)) {
                                if (!((float)x[1] > 23.88045310974121)) {
                                    return 14;
                                } else {
                                    if ((float)x[15] <= 2.327181100845337) {
                                        return 15;
                                    } else {
                                        return 16;
                                    }
                                }
                            } else {
                                if ((float)x[5] <= 0.09200192242860794) {
                                    return 17;
                                } else {
                                    return 18;
                                }
                            }
                        } else {
                            if (!((float)x[1] > 20.624385833740234)) {
                                return 19;
                            } else {
                                return 20;
                            }
                        }
                    } else {
                        if (!((float)x[10] > 3.0135987997055054)) {
                            return 21;
                        } else {
                            if (!((float)x[1] > 26.781280517578125)) {
                                return 22;
                            } else {
                                return 23;
                            }
                        }
                    }
                } else {
                    if (!((float)x[1] > 16.720165252685547)) {
                        if (!((float)x[2] > 0.2894531786441803)) {
                            return 24;
                        } else {
                            if ((float)x[3] <= 0.2752731293439865) {
                                return 25;
                            } else {
                                return 26;
                            }
                        }
                    } else {
                        return 27;
                    }
                }
            }
        }
    } else {
        if (!((float)x[0] > 3075.0)) {
            if ((float)x[2] <= 0.11256740242242813) {
                if (!((float)x[1] > 16.605103492736816)) {
                    if (!((float)x[10] > 13.679129123687744)) {
                        if ((float)x[1] <= 5.158177375793457) {
                            return 28;
                        } else {
                            return 29;
                        }
                    } else {
                        return 30;
                    }
                } else {
                    return 31;
                }
            } else {
                if ((float)x[1] <= 10.836727142333984) {
                    if ((float)x[10] <= 5.988460063934326) {
                        return 32;
                    } else {
                        return 33;
                    }
                } else {
                    if (!((float)x[1] > 36.17477035522461)) {
                        if (!((float)x[9] > 0.46679702401161194)) {
                            return 34;
                        } else {
                            if (!((float)x[1] > 33.1589469909668)) {
                                return 35;
                            } else {
                                return 36;
                            }
                        }
                    } else {
                        if (!((float)x[15] > 3.1505661010742188)) {
                            return 37;
                        } else {
                            return 38;
                        }
                    }
                }
            }
        } else {
            if ((float)x[1] <= 15.570725440979004) {
                return 39;
            } else {
                if ((float)x[2] <= 0.16949792206287384) {
                    return 40;
                } else {
                    return 41;
                }
            }
        }
    }
}

static inline int pensieve_tree_predict(const double *x)
{
    return pensieve_tree_leaf_class[pensieve_tree_leaf(x)];
}

static inline void pensieve_tree_predict_proba(const double *x, double *proba)
{
    const double *leaf = pensieve_tree_leaf_proba + pensieve_tree_leaf(x) * PENSIEVE_TREE_N_CLASSES;
    int k;
    for (k = 0; k < PENSIEVE_TREE_N_CLASSES; k++)
        proba[k] = leaf[k];
}

/* Quality index (0..5) of the next chunk: the label of pensieve_tree_predict's class. */
static const int pensieve_tree_quality_of_class[4] = {0, 1, 3, 5};

static inline int pensieve_tree_quality(const double *x)
{
    return pensieve_tree_quality_of_class[pensieve_tree_predict(x)];
}

#endif /* PENSIEVE_TREE_H */
