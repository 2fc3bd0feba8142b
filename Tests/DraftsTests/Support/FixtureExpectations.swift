import DraftsFeature
import Foundation

/// The value every golden fixture must decode to, written out by hand.
///
/// NB: Never derive these from the fixtures or from the current encoder: they state what the
/// user's data *is*, independently of the code under test.
enum FixtureExpectations {
  /// A long letter (more than 1,000 characters), in the pre-release file and in version 3.
  static let longLetter = """
    Querida Marta: te escribo estas líneas desde el tren, mientras el paisaje de Castilla pasa despacio por la ventana y el revisor anuncia que llegaremos con veinte minutos de retraso. Quería contarte, antes de que se me olvide, todo lo que hablamos ayer sobre el proyecto del huerto comunitario. La idea es sencilla: cada vecino se ocupa de una parcela durante un mes, apunta en el cuaderno qué ha sembrado y qué ha recogido, y al final de la temporada repartimos lo que sobre entre quienes no han podido participar. Lo difícil no es el trabajo, sino ponernos de acuerdo en los turnos, porque ya sabes que Julián solo puede los sábados y que la señora Pilar no quiere ni oír hablar de madrugar. También pensé en pedir al ayuntamiento que nos deje usar el agua de la fuente vieja; si no, tendremos que cargar garrafas desde el portal, y eso no lo aguanta nadie en agosto. Por cierto, el presupuesto para semillas, herramientas y una caseta pequeña ronda los trescientos euros, que podríamos cubrir con una rifa en las fiestas. Te dejo aquí la lista de cosas pendientes para que no se pierda: hablar con el presidente de la comunidad, pedir presupuesto de la caseta, preguntar por el agua, imprimir los carteles y, sobre todo, convencer a tu hermano de que nos preste la furgoneta. Un abrazo muy fuerte, y dale recuerdos a todos de mi parte. ¡Nos vemos el jueves!
    """

  static func id(_ string: String) -> UUID {
    // The literals below are valid UUIDs; a typo must fail the test, not crash it.
    UUID(uuidString: string) ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
  }

  static let v1: [Draft] = [
    Draft(
      id: id("0B7C6F2A-1D3E-4F5A-8B9C-0D1E2F3A4B01"), body: "Comprar café, pan de centeno y piñones"
    ),
    Draft(id: id("0B7C6F2A-1D3E-4F5A-8B9C-0D1E2F3A4B02"), body: "会議のメモ：来週の火曜日に資料を共有する"),
    Draft(id: id("0B7C6F2A-1D3E-4F5A-8B9C-0D1E2F3A4B03"), body: "שלום! להתקשר לדנה לפני יום שישי"),
    Draft(id: id("0B7C6F2A-1D3E-4F5A-8B9C-0D1E2F3A4B04"), body: "Viaje en familia 👨‍👩‍👧‍👦 y desfile 🏳️‍🌈 🇪🇸"),
    Draft(
      id: id("0B7C6F2A-1D3E-4F5A-8B9C-0D1E2F3A4B05"),
      body: "Línea uno\nLínea \"dos\"\tcon tabulador y é escrita como escape"
    ),
  ]

  static let legacyPrerelease: [Draft] = [
    Draft(
      id: id("3C9A5E10-7B2D-4E6F-9A1B-2C3D4E5F6A01"), body: "Beta: revisar la sincronización ☁️",
      pinned: true),
    Draft(
      id: id("3C9A5E10-7B2D-4E6F-9A1B-2C3D4E5F6A02"), body: "Ελληνικά και русский в одной заметке"),
    Draft(id: id("3C9A5E10-7B2D-4E6F-9A1B-2C3D4E5F6A03"), body: "Sin fijar: لا تنسَ الموعد 🧑🏽‍💻"),
    Draft(id: id("3C9A5E10-7B2D-4E6F-9A1B-2C3D4E5F6A04"), body: longLetter, pinned: true),
  ]

  static let v2: [Draft] = [
    Draft(
      id: id("5D2E8A41-9C3B-4A7D-8E6F-1A2B3C4D5E01"), body: "Pedir cita con la dentista 🦷",
      pinned: true),
    Draft(id: id("5D2E8A41-9C3B-4A7D-8E6F-1A2B3C4D5E02"), body: "読書リスト：『雪国』と『こころ』"),
    Draft(
      id: id("5D2E8A41-9C3B-4A7D-8E6F-1A2B3C4D5E03"),
      body: "مرحبا بالعالم — نص من اليمين إلى اليسار"),
    Draft(
      id: id("5D2E8A41-9C3B-4A7D-8E6F-1A2B3C4D5E04"), body: "Equipo 👩🏻‍🚀👨🏿‍🔬 y bandera 🏴‍☠️", pinned: true),
    Draft(id: id("5D2E8A41-9C3B-4A7D-8E6F-1A2B3C4D5E05"), body: ""),
  ]

  static let v3: [Draft] = [
    Draft(
      id: id("8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D01"),
      body: "Plan de la semana: lunes gimnasio, martes inglés",
      pinned: true,
      tags: ["personal", "rutina", "2024"]
    ),
    Draft(id: id("8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D02"), body: "東京で買うもの：抹茶、文房具"),
    Draft(
      id: id("8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D03"), body: "עברית ו-English באותה שורה",
      tags: ["idiomas"]),
    Draft(
      id: id("8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D04"),
      body: "Celebración 🎉👨‍👩‍👧 con ❤️‍🔥",
      pinned: true,
      tags: ["familia", "fiesta"]
    ),
    Draft(id: id("8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D05"), body: longLetter, tags: ["cartas"]),
  ]
}
