// PrDTClassifier exported by primo 0.1.0 (primo.export.to_js). No dependencies.
// Input: one row x, an array in feature order; NaN, null or undefined = missing.
export const featureNames = ["last_bitrate_kbps", "buffer_s", "throughput_MBps_lag0", "throughput_MBps_lag1", "throughput_MBps_lag2", "throughput_MBps_lag3", "throughput_MBps_lag4", "throughput_MBps_lag5", "throughput_MBps_lag6", "throughput_MBps_lag7", "download_time_s_lag0", "download_time_s_lag1", "download_time_s_lag2", "download_time_s_lag3", "download_time_s_lag4", "download_time_s_lag5", "download_time_s_lag6", "download_time_s_lag7", "next_size_MB_300kbps", "next_size_MB_750kbps", "next_size_MB_1200kbps", "next_size_MB_1850kbps", "next_size_MB_2850kbps", "next_size_MB_4300kbps", "chunks_left"];
export const classes = [0, 1, 3, 5];

const leafProba = new Float64Array([
  0.9911764705882353, 0.008823529411764706, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0,
  0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.03614457831325301,
  0.963855421686747, 0.0, 0.0, 0.03468208092485549, 0.9653179190751445, 0.0, 0.0, 0.0,
  0.9788732394366197, 0.02112676056338028, 0.0, 0.9873417721518988, 0.012658227848101266, 0.0, 0.0,
  1.0, 0.0, 0.0, 0.0, 0.05263157894736842, 0.9473684210526315, 0.0, 0.0, 0.07317073170731707,
  0.926829268292683, 0.0, 0.0, 0.0027100271002710027, 0.9966124661246613, 0.0006775067750677507,
  0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.975, 0.025, 0.0, 1.0, 0.0, 0.0, 0.0, 0.08333333333333333,
  0.9166666666666666, 0.0, 0.0, 0.0, 0.9756944444444444, 0.024305555555555556, 0.0, 0.0,
  0.07407407407407407, 0.9259259259259259, 0.0, 0.0, 0.07246376811594203, 0.927536231884058, 0.0,
  0.0, 0.9444444444444444, 0.05555555555555555, 0.0, 0.0, 0.1, 0.9, 0.0, 0.0, 0.9347826086956522,
  0.06521739130434782, 0.0, 0.0, 0.7272727272727273, 0.2727272727272727, 0.0, 0.0, 0.0, 1.0, 0.0,
  0.0, 0.03529411764705882, 0.9647058823529412, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0297029702970297,
  0.900990099009901, 0.06930693069306931, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
  0.07894736842105263, 0.9210526315789473, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.002173913043478261,
  0.9926086956521739, 0.0052173913043478265, 0.0, 0.0, 0.9259259259259259, 0.07407407407407407,
  0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.07142857142857142, 0.0,
  0.9285714285714286, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0
]);

const leafClass = new Int32Array([
  0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 2, 1, 0, 1, 1, 2, 2, 1, 2, 1, 1, 2, 2, 0, 1, 0, 2,
  2, 1, 2, 2, 3, 3, 2, 2, 2, 3
]);

export function leaf(x) {
  if (!(Math.fround(x[0]) > 1300.0)) {
    if (Math.fround(x[0]) <= 525.0) {
      if (!(Math.fround(x[1]) > 14.613136768341064)) {
        if (!(Math.fround(x[2]) > 0.10394562780857086)) {
          return 0;
        } else {
          if (Math.fround(x[1]) <= 10.057937145233154) {
            if (!(Math.fround(x[2]) > 0.18712949007749557)) {
              return 1;
            } else {
              return 2;
            }
          } else {
            if (Math.fround(x[2]) <= 0.12447218596935272) {
              if (!(Math.fround(x[1]) > 13.190830707550049)) {
                if (!(Math.fround(x[4]) > 0.10503989085555077)) {
                  if (!(Math.fround(x[6]) > 0.10942445322871208)) {
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
      if (Math.fround(x[1]) <= 10.292130470275879) {
        if (Math.fround(x[10]) <= 1.907892107963562) {
          return 9;
        } else {
          if (!(Math.fround(x[3]) > 0.11568117886781693)) {
            if (!(Math.fround(x[4]) > 0.13853317499160767)) {
              return 10;
            } else {
              if (Math.fround(x[1]) <= 7.8701183795928955) {
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
        if (!(Math.fround(x[2]) > 0.2290019690990448)) {
          if (!(Math.fround(x[1]) > 24.820252418518066)) {
            if (!(Math.fround(x[2]) > 0.17362945526838303)) {
              if (!(Math.fround(x[10]) > 7.842060327529907)) {
                if (!(Math.fround(x[1]) > 23.88045310974121)) {
                  return 14;
                } else {
                  if (Math.fround(x[15]) <= 2.327181100845337) {
                    return 15;
                  } else {
                    return 16;
                  }
                }
              } else {
                if (Math.fround(x[5]) <= 0.09200192242860794) {
                  return 17;
                } else {
                  return 18;
                }
              }
            } else {
              if (!(Math.fround(x[1]) > 20.624385833740234)) {
                return 19;
              } else {
                return 20;
              }
            }
          } else {
            if (!(Math.fround(x[10]) > 3.0135987997055054)) {
              return 21;
            } else {
              if (!(Math.fround(x[1]) > 26.781280517578125)) {
                return 22;
              } else {
                return 23;
              }
            }
          }
        } else {
          if (!(Math.fround(x[1]) > 16.720165252685547)) {
            if (!(Math.fround(x[2]) > 0.2894531786441803)) {
              return 24;
            } else {
              if (Math.fround(x[3]) <= 0.2752731293439865) {
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
    if (!(Math.fround(x[0]) > 3075.0)) {
      if (Math.fround(x[2]) <= 0.11256740242242813) {
        if (!(Math.fround(x[1]) > 16.605103492736816)) {
          if (!(Math.fround(x[10]) > 13.679129123687744)) {
            if (Math.fround(x[1]) <= 5.158177375793457) {
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
        if (Math.fround(x[1]) <= 10.836727142333984) {
          if (Math.fround(x[10]) <= 5.988460063934326) {
            return 32;
          } else {
            return 33;
          }
        } else {
          if (!(Math.fround(x[1]) > 36.17477035522461)) {
            if (!(Math.fround(x[9]) > 0.46679702401161194)) {
              return 34;
            } else {
              if (!(Math.fround(x[1]) > 33.1589469909668)) {
                return 35;
              } else {
                return 36;
              }
            }
          } else {
            if (!(Math.fround(x[15]) > 3.1505661010742188)) {
              return 37;
            } else {
              return 38;
            }
          }
        }
      }
    } else {
      if (Math.fround(x[1]) <= 15.570725440979004) {
        return 39;
      } else {
        if (Math.fround(x[2]) <= 0.16949792206287384) {
          return 40;
        } else {
          return 41;
        }
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
