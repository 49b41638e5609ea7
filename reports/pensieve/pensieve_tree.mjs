// PrDTClassifier exported by primo 0.1.0 (primo.export.to_js). No dependencies.
// Input: one row x, an array in feature order; NaN, null or undefined = missing.
export const featureNames = ["last_bitrate_kbps", "buffer_s", "throughput_MBps_lag0", "throughput_MBps_lag1", "throughput_MBps_lag2", "throughput_MBps_lag3", "throughput_MBps_lag4", "throughput_MBps_lag5", "throughput_MBps_lag6", "throughput_MBps_lag7", "download_time_s_lag0", "download_time_s_lag1", "download_time_s_lag2", "download_time_s_lag3", "download_time_s_lag4", "download_time_s_lag5", "download_time_s_lag6", "download_time_s_lag7", "next_size_MB_300kbps", "next_size_MB_750kbps", "next_size_MB_1200kbps", "next_size_MB_1850kbps", "next_size_MB_2850kbps", "next_size_MB_4300kbps", "chunks_left"];
export const classes = [0, 1, 3, 5];

const leafProba = new Float64Array([
  0.9027777777777779, 0.06944444444444446, 0.01388888888888889, 0.01388888888888889,
  0.10526315789473684, 0.8596491228070176, 0.017543859649122806, 0.017543859649122806,
  0.9923625254582485, 0.006619144602851325, 0.0005091649694501019, 0.0005091649694501019,
  0.9574468085106383, 0.028368794326241134, 0.0070921985815602835, 0.0070921985815602835,
  0.17857142857142858, 0.75, 0.03571428571428571, 0.03571428571428571, 0.94, 0.02, 0.02, 0.02,
  0.16666666666666666, 0.7777777777777778, 0.027777777777777776, 0.027777777777777776,
  0.918918918918919, 0.02702702702702703, 0.02702702702702703, 0.02702702702702703,
  0.0967741935483871, 0.8870967741935484, 0.008064516129032258, 0.008064516129032258,
  0.9176470588235295, 0.05882352941176471, 0.011764705882352943, 0.011764705882352943,
  0.19047619047619047, 0.7777777777777778, 0.015873015873015872, 0.015873015873015872,
  0.7407407407407408, 0.1851851851851852, 0.03703703703703704, 0.03703703703703704,
  0.041666666666666664, 0.9166666666666666, 0.020833333333333332, 0.020833333333333332,
  0.034482758620689655, 0.9592476489028213, 0.003134796238244514, 0.003134796238244514,
  0.041666666666666664, 0.2916666666666667, 0.625, 0.041666666666666664, 0.00892857142857143,
  0.9776785714285715, 0.00892857142857143, 0.004464285714285715, 0.9790209790209791,
  0.017482517482517484, 0.0017482517482517483, 0.0017482517482517483, 0.8421052631578947,
  0.1368421052631579, 0.010526315789473684, 0.010526315789473684, 0.25, 0.7, 0.025, 0.025,
  0.13636363636363635, 0.8409090909090909, 0.011363636363636364, 0.011363636363636364,
  0.0036826247070639436, 0.993806494810847, 0.002343488449949782, 0.00016739203213927018,
  0.002331002331002331, 0.9557109557109557, 0.039627039627039624, 0.002331002331002331,
  0.02702702702702703, 0.16216216216216217, 0.7837837837837838, 0.02702702702702703, 0.015625,
  0.90625, 0.0625, 0.015625, 0.02702702702702703, 0.08108108108108109, 0.8648648648648649,
  0.02702702702702703, 0.7704918032786885, 0.19672131147540983, 0.01639344262295082,
  0.01639344262295082, 0.016129032258064516, 0.9516129032258065, 0.016129032258064516,
  0.016129032258064516, 0.003076923076923077, 0.9476923076923077, 0.046153846153846156,
  0.003076923076923077, 0.02857142857142857, 0.02857142857142857, 0.9142857142857143,
  0.02857142857142857, 0.016949152542372885, 0.5932203389830509, 0.37288135593220345,
  0.016949152542372885, 0.02631578947368421, 0.05263157894736842, 0.8947368421052632,
  0.02631578947368421, 0.006944444444444444, 0.020833333333333332, 0.9652777777777778,
  0.006944444444444444, 0.05, 0.7, 0.2, 0.05, 0.005291005291005291, 0.10582010582010581,
  0.8835978835978836, 0.005291005291005291, 0.0502092050209205, 0.9037656903765691,
  0.04184100418410042, 0.0041841004184100415, 0.8709677419354839, 0.0967741935483871,
  0.016129032258064516, 0.016129032258064516, 0.02857142857142857, 0.6857142857142857,
  0.2571428571428571, 0.02857142857142857, 0.006756756756756757, 0.02027027027027027,
  0.9662162162162162, 0.006756756756756757, 0.00023435669088352472, 0.002812280290602297,
  0.9955472228732131, 0.0014061401453011485, 0.029411764705882353, 0.6764705882352942,
  0.2647058823529412, 0.029411764705882353, 0.010869565217391304, 0.021739130434782608,
  0.9565217391304348, 0.010869565217391304, 0.008064516129032258, 0.008064516129032258,
  0.9596774193548387, 0.024193548387096774, 0.02, 0.02, 0.06, 0.9, 0.02040816326530612,
  0.8163265306122449, 0.14285714285714285, 0.02040816326530612, 0.012048192771084338,
  0.012048192771084338, 0.20481927710843373, 0.7710843373493976, 0.05555555555555555,
  0.027777777777777776, 0.8888888888888888, 0.027777777777777776, 0.003115264797507788,
  0.003115264797507788, 0.028037383177570093, 0.9657320872274143
]);

const leafClass = new Int32Array([
  0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 2, 1, 0, 0, 1, 1, 1, 1, 2, 1, 2, 0, 1, 1, 2, 1, 2, 2,
  1, 2, 1, 0, 1, 2, 2, 1, 2, 2, 3, 1, 3, 2, 3
]);

export function leaf(x) {
  if (!(Math.fround(x[0] ?? NaN) > 1300.0)) {
    if (Math.fround(x[0] ?? NaN) <= 525.0) {
      if (!(Math.fround(x[1] ?? NaN) > 13.760685920715332)) {
        if (!(Math.fround(x[2] ?? NaN) > 0.15062327682971954)) {
          if (Math.fround(x[11] ?? NaN) <= 1.2604166269302368) {
            if (!(Math.fround(x[1] ?? NaN) > 11.858939170837402)) {
              return 0;
            } else {
              return 1;
            }
          } else {
            if (!(Math.fround(x[1] ?? NaN) > 13.448975563049316)) {
              if (!(Math.fround(x[2] ?? NaN) > 0.12060614302754402)) {
                return 2;
              } else {
                if (!(Math.fround(x[1] ?? NaN) > 11.64763069152832)) {
                  return 3;
                } else {
                  return 4;
                }
              }
            } else {
              if (!(Math.fround(x[5] ?? NaN) > 0.06577370688319206)) {
                return 5;
              } else {
                return 6;
              }
            }
          }
        } else {
          if (Math.fround(x[1] ?? NaN) <= 7.181741952896118) {
            return 7;
          } else {
            return 8;
          }
        }
      } else {
        if (Math.fround(x[2] ?? NaN) <= 0.07165135070681572) {
          if (!(Math.fround(x[1] ?? NaN) > 14.637681484222412)) {
            return 9;
          } else {
            return 10;
          }
        } else {
          if (Math.fround(x[2] ?? NaN) <= 0.08371628820896149) {
            if (Math.fround(x[1] ?? NaN) <= 14.394658088684082) {
              return 11;
            } else {
              return 12;
            }
          } else {
            return 13;
          }
        }
      }
    } else {
      if (Math.fround(x[1] ?? NaN) <= 10.269446849822998) {
        if (Math.fround(x[10] ?? NaN) <= 1.9380218386650085) {
          if (Math.fround(x[10] ?? NaN) <= 0.9083943665027618) {
            return 14;
          } else {
            return 15;
          }
        } else {
          if (!(Math.fround(x[3] ?? NaN) > 0.12227941304445267)) {
            if (!(Math.fround(x[3] ?? NaN) > 0.0887417159974575)) {
              return 16;
            } else {
              if (!(Math.fround(x[2] ?? NaN) > 0.10177983716130257)) {
                return 17;
              } else {
                return 18;
              }
            }
          } else {
            return 19;
          }
        }
      } else {
        if (!(Math.fround(x[1] ?? NaN) > 25.096370697021484)) {
          if (!(Math.fround(x[2] ?? NaN) > 0.19922354817390442)) {
            if (!(Math.fround(x[10] ?? NaN) > 7.07261061668396)) {
              if (!(Math.fround(x[1] ?? NaN) > 24.367769241333008)) {
                if (!(Math.fround(x[1] ?? NaN) > 22.119267463684082)) {
                  return 20;
                } else {
                  if (!(Math.fround(x[2] ?? NaN) > 0.16826966404914856)) {
                    return 21;
                  } else {
                    return 22;
                  }
                }
              } else {
                if (!(Math.fround(x[2] ?? NaN) > 0.14576290547847748)) {
                  return 23;
                } else {
                  return 24;
                }
              }
            } else {
              if (!(Math.fround(x[1] ?? NaN) > 12.302773475646973)) {
                return 25;
              } else {
                return 26;
              }
            }
          } else {
            if (!(Math.fround(x[1] ?? NaN) > 17.336230278015137)) {
              if (!(Math.fround(x[2] ?? NaN) > 0.3125470280647278)) {
                return 27;
              } else {
                return 28;
              }
            } else {
              if (Math.fround(x[1] ?? NaN) <= 19.287035942077637) {
                if (!(Math.fround(x[2] ?? NaN) > 0.23998528718948364)) {
                  return 29;
                } else {
                  return 30;
                }
              } else {
                return 31;
              }
            }
          }
        } else {
          if (Math.fround(x[2] ?? NaN) <= 0.1056574136018753) {
            return 32;
          } else {
            return 33;
          }
        }
      }
    }
  } else {
    if (!(Math.fround(x[0] ?? NaN) > 3075.0)) {
      if (Math.fround(x[1] ?? NaN) <= 11.896767139434814) {
        if (!(Math.fround(x[2] ?? NaN) > 0.15379134565591812)) {
          if (!(Math.fround(x[10] ?? NaN) > 11.936588764190674)) {
            return 34;
          } else {
            return 35;
          }
        } else {
          if (Math.fround(x[1] ?? NaN) <= 8.8385591506958) {
            return 36;
          } else {
            return 37;
          }
        }
      } else {
        if (!(Math.fround(x[1] ?? NaN) > 37.496089935302734)) {
          if (!(Math.fround(x[10] ?? NaN) > 9.958928108215332)) {
            if (!(Math.fround(x[2] ?? NaN) > 0.4370962232351303)) {
              if (!(Math.fround(x[10] ?? NaN) > 8.348124504089355)) {
                return 38;
              } else {
                if (Math.fround(x[1] ?? NaN) <= 15.149447441101074) {
                  return 39;
                } else {
                  return 40;
                }
              }
            } else {
              if (!(Math.fround(x[1] ?? NaN) > 29.435665130615234)) {
                return 41;
              } else {
                return 42;
              }
            }
          } else {
            return 43;
          }
        } else {
          return 44;
        }
      }
    } else {
      if (Math.fround(x[1] ?? NaN) <= 12.071303844451904) {
        return 45;
      } else {
        return 46;
      }
    }
  }
}

export function predict(x) {
  return classes[leafClass[leaf(x)]];
}

export function predictProba(x) {
  const start = leaf(x) * 4;
  return Array.from(leafProba.subarray(start, start + 4));
}

// ---------------------------------------------------------------------------------------------
// ABR rule interface (adapters.pensieve.abr_rule): the player's metrics -> quality index 0..5.
// metrics = {lastBitrateKbps, bufferLevelS, throughputsMBps[], downloadTimesS[] (newest first,
//            up to 8), nextChunkSizesBytes[6], chunksLeft}. Sketch of a dash.js custom rule:
//   getSwitchRequest(rulesContext) {
//     const request = SwitchRequest(context).create();
//     request.quality = chooseQuality(metricsFromDashJs(rulesContext));  // your own glue
//     request.reason = {rule: "PrimoPensieveTree"};
//     return request;
//   }
export const bitratesKbps = [300, 750, 1200, 1850, 2850, 4300];
export const historyLength = 8;

function history(values, name) {
  if (!Array.isArray(values)) throw new TypeError(`metrics.${name} must be an array, newest first`);
  const out = new Array(historyLength).fill(0);  // chunks before the video started count as 0
  for (let k = 0; k < Math.min(historyLength, values.length); k++) out[k] = Number(values[k]);
  return out;
}

function scalar(metrics, name) {
  const v = metrics[name];
  if (typeof v !== "number" || !Number.isFinite(v)) throw new TypeError(`metrics.${name} must be a finite number`);
  return v;
}

// The tree's input row (featureNames order) from the player's metrics.
export function observation(metrics) {
  const sizes = metrics.nextChunkSizesBytes;
  if (!Array.isArray(sizes) || sizes.length !== bitratesKbps.length) {
    throw new TypeError(`metrics.nextChunkSizesBytes must hold ${bitratesKbps.length} sizes, one per quality`);
  }
  return [
    scalar(metrics, "lastBitrateKbps"),
    scalar(metrics, "bufferLevelS"),
    ...history(metrics.throughputsMBps, "throughputsMBps"),
    ...history(metrics.downloadTimesS, "downloadTimesS"),
    ...sizes.map((bytes) => Number(bytes) / 1000 / 1000),
    scalar(metrics, "chunksLeft"),
  ];
}

// Quality index (0..5) of the next chunk.
export function chooseQuality(metrics) {
  return predict(observation(metrics));
}
