/**
 * NANP area codes → the IANA zone most of the people behind them live in, for the lead-time guard
 * when a lead has no state (see lead-time-zone.ts).
 *
 * Where this comes from: each code's geography is NANPA's assignment (nationalnanpa.com, "NPA
 * Database" / area-code maps; for Canada the CNA, cnac.ca), grouped by state, province or
 * country. The zone of each group is the tz database's zone for that place. Where an area code's
 * territory spans two zones, the zone of the majority of its population is used and the group says
 * so in its `note`; Google libphonenumber's `resources/timezones/map_data.txt` (which splits by
 * exchange) was used as a cross-check for those. Codes were checked against libphonenumber-js
 * 1.13 metadata: every geographic US and Canadian code it knows is listed here, except 867
 * (Yukon, Northwest Territories and Nunavut: three zones, no majority) and 273 (Canadian, no
 * published geography at the time of writing). Non-geographic codes (toll-free 8XX, 500s, 600,
 * 622, 633, 900) are deliberately absent: they say nothing about where the person is.
 *
 * How to update: when NANPA announces a new area code (usually an overlay of an existing one),
 * add it to the same group as the code it overlays. Run the dialing tests: they check that every
 * code appears once, every zone is a valid IANA zone, every US group agrees with the state's zone
 * unless it carries a note, and every code is one libphonenumber-js places in the group's country.
 */

export interface AreaCodeGroup {
  /** ISO 3166-2 subdivision (`US-NY`, `CA-ON`) or ISO 3166-1 country (`JM`). */
  readonly region: string
  readonly zone: string
  readonly codes: readonly string[]
  /** Why this group's zone differs from its region's usual zone. */
  readonly note?: string
}

const codes = (list: string): readonly string[] => list.trim().split(/\s+/)

export const NANP_AREA_CODE_GROUPS: readonly AreaCodeGroup[] = [
  // United States, by state.
  { region: 'US-AL', zone: 'America/Chicago', codes: codes('205 251 256 334 659 938') },
  { region: 'US-AK', zone: 'America/Anchorage', codes: codes('907') },
  { region: 'US-AZ', zone: 'America/Phoenix', codes: codes('480 520 602 623 928') },
  { region: 'US-AR', zone: 'America/Chicago', codes: codes('327 479 501 870') },
  {
    region: 'US-CA',
    zone: 'America/Los_Angeles',
    codes: codes(`209 213 279 310 323 341 350 369 408 415 424 442 510 530 559 562 619 626 628 650 657
      661 669 707 714 738 747 760 805 818 820 831 840 858 909 916 925 949 951`),
  },
  { region: 'US-CO', zone: 'America/Denver', codes: codes('303 719 720 748 970 983') },
  { region: 'US-CT', zone: 'America/New_York', codes: codes('203 475 860 959') },
  { region: 'US-DE', zone: 'America/New_York', codes: codes('302') },
  { region: 'US-DC', zone: 'America/New_York', codes: codes('202 771') },
  {
    region: 'US-FL',
    zone: 'America/New_York',
    codes: codes('239 305 321 324 352 386 407 561 645 656 689 727 728 754 772 786 813 863 904 941 954'),
  },
  {
    region: 'US-FL',
    zone: 'America/Chicago',
    codes: codes('448 850'),
    note: 'the panhandle: Pensacola, Fort Walton Beach and Panama City (Central) outnumber Tallahassee (Eastern)',
  },
  { region: 'US-GA', zone: 'America/New_York', codes: codes('229 404 470 478 678 706 762 770 912 943') },
  { region: 'US-HI', zone: 'Pacific/Honolulu', codes: codes('808') },
  { region: 'US-ID', zone: 'America/Boise', codes: codes('208 986') },
  {
    region: 'US-IL',
    zone: 'America/Chicago',
    codes: codes('217 224 309 312 331 447 464 618 630 708 730 773 779 815 847 872'),
  },
  { region: 'US-IN', zone: 'America/Indiana/Indianapolis', codes: codes('260 317 463 574 765 812 930') },
  {
    region: 'US-IN',
    zone: 'America/Chicago',
    codes: codes('219'),
    note: 'northwest Indiana: Lake and Porter counties (Gary, Hammond) keep Chicago time',
  },
  { region: 'US-IA', zone: 'America/Chicago', codes: codes('319 515 563 641 712') },
  { region: 'US-KS', zone: 'America/Chicago', codes: codes('316 620 785 913') },
  { region: 'US-KY', zone: 'America/Kentucky/Louisville', codes: codes('502 606 859') },
  {
    region: 'US-KY',
    zone: 'America/Chicago',
    codes: codes('270 364'),
    note: 'western Kentucky: Bowling Green, Owensboro and Paducah are Central; Elizabethtown is the Eastern minority',
  },
  { region: 'US-LA', zone: 'America/Chicago', codes: codes('225 318 337 504 985') },
  { region: 'US-ME', zone: 'America/New_York', codes: codes('207') },
  { region: 'US-MD', zone: 'America/New_York', codes: codes('227 240 301 410 443 667') },
  { region: 'US-MA', zone: 'America/New_York', codes: codes('339 351 413 508 617 774 781 857 978') },
  {
    region: 'US-MI',
    zone: 'America/Detroit',
    codes: codes('231 248 269 313 517 586 616 734 810 906 947 989'),
  },
  { region: 'US-MN', zone: 'America/Chicago', codes: codes('218 320 507 612 651 763 952') },
  { region: 'US-MS', zone: 'America/Chicago', codes: codes('228 601 662 769') },
  { region: 'US-MO', zone: 'America/Chicago', codes: codes('235 314 417 557 573 636 660 816 975') },
  { region: 'US-MT', zone: 'America/Denver', codes: codes('406') },
  { region: 'US-NE', zone: 'America/Chicago', codes: codes('308 402 531') },
  { region: 'US-NV', zone: 'America/Los_Angeles', codes: codes('702 725 775') },
  { region: 'US-NH', zone: 'America/New_York', codes: codes('603') },
  { region: 'US-NJ', zone: 'America/New_York', codes: codes('201 551 609 640 732 848 856 862 908 973') },
  { region: 'US-NM', zone: 'America/Denver', codes: codes('505 575') },
  {
    region: 'US-NY',
    zone: 'America/New_York',
    codes: codes('212 315 329 332 347 363 516 518 585 607 631 646 680 716 718 838 845 914 917 929 934'),
  },
  { region: 'US-NC', zone: 'America/New_York', codes: codes('252 336 472 704 743 828 910 919 980 984') },
  { region: 'US-ND', zone: 'America/Chicago', codes: codes('701') },
  {
    region: 'US-OH',
    zone: 'America/New_York',
    codes: codes('216 220 234 283 326 330 380 419 440 513 567 614 740 937'),
  },
  { region: 'US-OK', zone: 'America/Chicago', codes: codes('405 539 572 580 918') },
  { region: 'US-OR', zone: 'America/Los_Angeles', codes: codes('458 503 541 971') },
  {
    region: 'US-PA',
    zone: 'America/New_York',
    codes: codes('215 223 267 272 412 445 484 570 582 610 717 724 814 835 878'),
  },
  { region: 'US-RI', zone: 'America/New_York', codes: codes('401') },
  { region: 'US-SC', zone: 'America/New_York', codes: codes('803 821 839 843 854 864') },
  { region: 'US-SD', zone: 'America/Chicago', codes: codes('605') },
  { region: 'US-TN', zone: 'America/Chicago', codes: codes('615 629 731 901 931') },
  {
    region: 'US-TN',
    zone: 'America/New_York',
    codes: codes('423 865'),
    note: 'East Tennessee: Knoxville, Chattanooga and the Tri-Cities keep Eastern time',
  },
  {
    region: 'US-TX',
    zone: 'America/Chicago',
    codes: codes(`210 214 254 281 325 346 361 409 430 432 469 512 682 713 726 737 806 817 830 832 903
      936 940 945 956 972 979`),
  },
  {
    region: 'US-TX',
    zone: 'America/Denver',
    codes: codes('915'),
    note: 'El Paso and Hudspeth counties keep Mountain time',
  },
  { region: 'US-UT', zone: 'America/Denver', codes: codes('385 435 801') },
  { region: 'US-VT', zone: 'America/New_York', codes: codes('802') },
  { region: 'US-VA', zone: 'America/New_York', codes: codes('276 434 540 571 686 703 757 804 826 948') },
  { region: 'US-WA', zone: 'America/Los_Angeles', codes: codes('206 253 360 425 509 564') },
  { region: 'US-WV', zone: 'America/New_York', codes: codes('304 681') },
  { region: 'US-WI', zone: 'America/Chicago', codes: codes('262 274 353 414 534 608 715 920') },
  { region: 'US-WY', zone: 'America/Denver', codes: codes('307') },
  // US territories.
  { region: 'US-PR', zone: 'America/Puerto_Rico', codes: codes('787 939') },
  { region: 'US-VI', zone: 'America/St_Thomas', codes: codes('340') },
  { region: 'US-GU', zone: 'Pacific/Guam', codes: codes('671') },
  { region: 'US-MP', zone: 'Pacific/Saipan', codes: codes('670') },
  { region: 'US-AS', zone: 'Pacific/Pago_Pago', codes: codes('684') },
  // Canada, by province.
  { region: 'CA-AB', zone: 'America/Edmonton', codes: codes('368 403 587 780 825') },
  { region: 'CA-BC', zone: 'America/Vancouver', codes: codes('236 250 257 604 672 778') },
  { region: 'CA-MB', zone: 'America/Winnipeg', codes: codes('204 431 584') },
  { region: 'CA-NB', zone: 'America/Moncton', codes: codes('428 506') },
  { region: 'CA-NL', zone: 'America/St_Johns', codes: codes('709 879') },
  { region: 'CA-NS', zone: 'America/Halifax', codes: codes('782 902'), note: 'also Prince Edward Island, same zone' },
  {
    region: 'CA-ON',
    zone: 'America/Toronto',
    codes: codes('226 249 289 343 365 382 416 437 519 548 613 647 683 705 742 753 807 905 942'),
  },
  { region: 'CA-QC', zone: 'America/Toronto', codes: codes('263 354 367 418 438 450 468 514 579 581 819 873') },
  { region: 'CA-SK', zone: 'America/Regina', codes: codes('306 474 639') },
  // Other NANP countries (each has one zone).
  { region: 'AG', zone: 'America/Antigua', codes: codes('268') },
  { region: 'AI', zone: 'America/Anguilla', codes: codes('264') },
  { region: 'BB', zone: 'America/Barbados', codes: codes('246') },
  { region: 'BM', zone: 'Atlantic/Bermuda', codes: codes('441') },
  { region: 'BS', zone: 'America/Nassau', codes: codes('242') },
  { region: 'DM', zone: 'America/Dominica', codes: codes('767') },
  { region: 'DO', zone: 'America/Santo_Domingo', codes: codes('809 829 849') },
  { region: 'GD', zone: 'America/Grenada', codes: codes('473') },
  { region: 'JM', zone: 'America/Jamaica', codes: codes('658 876') },
  { region: 'KN', zone: 'America/St_Kitts', codes: codes('869') },
  { region: 'KY', zone: 'America/Cayman', codes: codes('345') },
  { region: 'LC', zone: 'America/St_Lucia', codes: codes('758') },
  { region: 'MS', zone: 'America/Montserrat', codes: codes('664') },
  { region: 'SX', zone: 'America/Lower_Princes', codes: codes('721') },
  { region: 'TC', zone: 'America/Grand_Turk', codes: codes('649') },
  { region: 'TT', zone: 'America/Port_of_Spain', codes: codes('868') },
  { region: 'VC', zone: 'America/St_Vincent', codes: codes('784') },
  { region: 'VG', zone: 'America/Tortola', codes: codes('284') },
]
