/** Kabupaten/kota codes retired when Papua was split in 2022, so a NIK issued before the split still resolves. */

/**
 * Old code → today's code. NIK digits 1-4 are never reissued when a region moves, so a NIK from before
 * UU 14, 15, 16 and 29 of 2022 (Papua Selatan 93, Papua Tengah 94, Papua Pegunungan 95, Papua Barat Daya 96)
 * still starts with the 91.xx or 92.xx code. The old codes are those of the pre-2022 Kemendagri list
 * (cahyadsn/wilayah db/wilayah_2020.sql); each region kept its name, which is how today's code was matched.
 */
const MOVED_IN_2022: Readonly<Record<string, string>> = {
  '91.01': '93.01', // Merauke
  '91.02': '95.01', // Jayawijaya
  '91.04': '94.01', // Nabire
  '91.07': '94.02', // Puncak Jaya
  '91.08': '94.03', // Paniai
  '91.09': '94.04', // Mimika
  '91.12': '95.02', // Pegunungan Bintang
  '91.13': '95.03', // Yahukimo
  '91.14': '95.04', // Tolikara
  '91.16': '93.02', // Boven Digoel
  '91.17': '93.03', // Mappi
  '91.18': '93.04', // Asmat
  '91.21': '95.05', // Mamberamo Tengah
  '91.22': '95.06', // Yalimo
  '91.23': '95.07', // Lanny Jaya
  '91.24': '95.08', // Nduga
  '91.25': '94.05', // Puncak
  '91.26': '94.06', // Dogiyai
  '91.27': '94.07', // Intan Jaya
  '91.28': '94.08', // Deiyai
  '92.01': '96.01', // Sorong
  '92.04': '96.02', // Sorong Selatan
  '92.05': '96.03', // Raja Ampat
  '92.09': '96.04', // Tambrauw
  '92.10': '96.05', // Maybrat
  '92.71': '96.71', // Kota Sorong
};

/** Today's kabupaten/kota code for a code retired in the 2022 Papua split, if it is one. */
export function currentCodeOf(formerKode: string): string | undefined {
  return MOVED_IN_2022[formerKode];
}

export function formerCodes(): ReadonlyArray<readonly [string, string]> {
  return Object.entries(MOVED_IN_2022);
}
