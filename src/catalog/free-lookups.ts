/** The six free Indonesian lookups as /v1/consult sees them: not sold, but a good answer to many intents. */

export interface FreeLookup {
  id: string;
  name: string;
  method: 'GET';
  path: string;
  description: string;
  synonyms: string[];
  /** Query parameters of a typical call. */
  example: Record<string, string>;
}

export const FREE_LOOKUPS: readonly FreeLookup[] = [
  {
    id: 'tools/wilayah',
    name: 'Indonesian regions (wilayah)',
    method: 'GET',
    path: '/v1/tools/wilayah',
    description:
      'Official codes, names, capitals, centroids, time zones, area and population of the 38 provinces and 514 regencies and cities of Indonesia.',
    synonyms: [
      'province',
      'regency',
      'city code',
      'region code',
      'provinsi',
      'kabupaten',
      'kota',
      'kode wilayah',
      'daerah',
      'ibukota',
      'penduduk',
    ],
    example: { q: 'Bandung' },
  },
  {
    id: 'tools/prayer-times',
    name: 'Prayer times',
    method: 'GET',
    path: '/v1/tools/prayer-times',
    description:
      'Islamic prayer times (imsak, fajr/subuh, sunrise, dhuhr/dzuhur, asr/ashar, maghrib, isha/isya) for an Indonesian city or any coordinates, Kemenag method by default.',
    synonyms: [
      'prayer times',
      'salat',
      'sholat',
      'shalat',
      'solat',
      'jadwal sholat',
      'waktu sholat',
      'jadwal shalat',
      'adzan',
      'azan',
      'imsak',
      'subuh',
      'maghrib',
      'buka puasa',
      'ramadan',
      'namaz',
    ],
    example: { city: 'Bandung' },
  },
  {
    id: 'tools/verify-nik',
    name: 'NIK check',
    method: 'GET',
    path: '/v1/tools/verify-nik',
    description:
      'Checks that a 16-digit Indonesian NIK (KTP number) is well formed and consistent with a birth date and gender, and names its region.',
    synonyms: ['nik', 'ktp number', 'nomor ktp', 'cek nik', 'validate nik', 'nomor induk kependudukan'],
    example: { nik: '3273010101900001' },
  },
  {
    id: 'tools/verify-npwp',
    name: 'NPWP check',
    method: 'GET',
    path: '/v1/tools/verify-npwp',
    description:
      'Checks the structure of an Indonesian tax number (NPWP, 15 or 16 digits) and splits it into its parts.',
    synonyms: ['npwp', 'tax id', 'tax number', 'nomor pajak', 'cek npwp', 'nomor pokok wajib pajak'],
    example: { npwp: '01.234.567.8-901.000' },
  },
  {
    id: 'tools/qris',
    name: 'QRIS decoder',
    method: 'GET',
    path: '/v1/tools/qris',
    description:
      'Decodes a QRIS payment code: CRC check, merchant name and city, static or dynamic; can set an amount on a static code.',
    synonyms: [
      'qris',
      'qr payment',
      'qr code payment',
      'merchant qr',
      'decode qris',
      'kode qr pembayaran',
      'bayar qr',
    ],
    example: { payload: '00020101021126…6304ABCD' },
  },
  {
    id: 'tools/terbilang',
    name: 'Terbilang (number to Indonesian words)',
    method: 'GET',
    path: '/v1/tools/terbilang',
    description:
      'Spells a whole number in Indonesian words, and as a rupiah phrase for invoices and receipts.',
    synonyms: [
      'terbilang',
      'number to words',
      'spell out number',
      'angka ke kata',
      'angka jadi huruf',
      'rupiah in words',
      'kwitansi',
    ],
    example: { n: '1250000' },
  },
];
